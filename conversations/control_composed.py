"""Control phrases composed from their parts rather than listed one by one (control_phrases.py adds
them to its lists): a verb and what it acts on ("desfaz a última", "cancel this request"), an
affirmation of what is on screen ("that's right", "tá certo isso"), a wish withdrawn ("I don't want
this anymore", "não quero mais isso"). Closed-class words of the two languages, folded like the lists.
"""

from __future__ import annotations

from .nominal import ACTION_NOUNS


def undo_phrasings() -> frozenset[str]:
    """An undo said as a verb and what it undoes, composed rather than listed one by one: "desfaz a
    última", "undo that last one", "volta ele" (put back what was just removed), "put it back". A verb
    that also means going somewhere ("volta") undoes only with an object ("volta ele", not "volta")."""
    heads = (("a", "ultima"), ("essa", "ultima"), ("esta", "ultima"), ("", "ultima"), ("o", "ultimo"),
             ("esse", "ultimo"), ("", "ultimo"))
    last_pt = [f"{d} {w} {n}".strip() for d, w in heads
               for n in ("", "acao", "alteracao", "mudanca", "operacao", "coisa", "passo", "comando")]
    last_en = [f"{d} {w} {n}".strip() for d in ("the", "that", "this", "my", "") for w in ("last", "latest")
               for n in ("", "one", "change", "action", "operation", "thing", "step")]
    pronouns = ["isso", "isto", "aquilo", "ele", "ela", "eles", "elas", "esse", "essa", "este", "esta", "it", "that",
                "this", "him", "her", "them", "that one", "this one", "nisso", "nisso ai", "isso ai", "nisso aqui"]
    done = [" ".join(f"{p} {w} {t}".split()) for p in ("o que", "no que", "") for w in ("voce", "vc", "tu", "")
            for t in ("fez", "acabou de fazer", "fez agora", "fez agora pouco")] + [
        f"what you {t}" for t in ("did", "just did", "did just now", "just changed")] + [
        f"{p} foi {t}" for p in ("o que", "tudo que", "tudo o que") for t in ("feito", "feito agora", "adicionado",
                                                                             "incluido", "alterado", "mudado")] + [
        f"what {v} {t}" for v in ("was", "got", "has been") for t in ("done", "just done", "added", "changed")]
    # "essa alteração", "that change", "a mudança que você fez": the change named by a demonstrative
    changes = [f"{d} {n}" for d in ("essa", "esta", "aquela", "a")
               for n in ("alteracao", "mudanca", "acao", "operacao", "adicao", "inclusao", "remocao", "exclusao",
                         "retirada")]
    changes += [f"{d} {n}" for d in ("esse", "este", "aquele", "o", "meu", "ultimo")
                for n in ("passo", "comando", "ajuste", "registro", "lancamento")]
    changes += [f"{d} {n}" for d in ("that", "this", "the", "my", "last")
                for n in ("change", "edit", "update", "action", "step", "entry", "record", "addition", "removal")]
    changes += ["the same"]  # "kindly undo the same": the same as what was just done
    # "the last thing you did", "a última coisa que você fez": the last one, said of what the agent did
    last_done = [f"{o} {t}" for o in last_en if o.startswith(("the", "that")) for t in ("you did", "you just did")]
    last_done += [f"{o} {t}" for o in last_pt if o.startswith(("a ", "o ")) for t in ("que voce fez", "que vc fez")]
    objects = [*last_pt, *last_en, *pronouns, *changes, *last_done,
               *[d for d in done if d.startswith(("o que", "no que", "tudo", "what"))]]
    undo_verbs = ["desfaz", "desfaca", "desfazer", "undo", "revert", "reverte", "reverta", "reverter", "roll back",
                  "volta atras", "volte atras", "voltar atras"]
    composed = {f"{v} {o}" for v in undo_verbs for o in objects}
    composed |= {f"{v} {o}" for v in ("volta", "volte", "voltar") for o in objects}
    composed |= {f"{v} {p} de volta" for v in ("bota", "poe", "coloca", "traz") for p in pronouns[:9]}
    composed |= {f"{v} {p} back" for v in ("put", "bring", "take") for p in ("it", "that", "him", "her", "them")}
    # "put it back the way it was", "deixa como estava", "volta do jeito que era": the state before
    was_pt = [f"{h} {w}{a}" for h in ("como", "do jeito que", "igual") for w in ("estava", "era", "tava")
              for a in ("", " antes")] + ["como antes"]
    was_en = ["the way it was", "how it was", "as it was", "like it was", "like before", "as before"]
    composed |= {f"{c} {w}" for c in list(composed) for w in was_pt + was_en}
    composed |= {f"{v} {w}" for v in ("deixa", "deixe", "volta", "volte", "poe", "bota", "coloca") for w in was_pt}
    composed |= {f"{v} {w}" for v in ("make it", "put it", "leave it", "set it") for w in was_en}
    # "desfaz essa remarcação", "undo that extension": any action named by its noun (nominal.py)
    named = [f"{d} {n}" for d in ("essa", "esta", "aquela", "a", "that", "this", "the", "my")
             for n in ACTION_NOUNS if n.isascii()]
    composed |= {f"{v} {o}" for v in undo_verbs for o in named}
    return frozenset(composed)


UNDO_VERBS = frozenset(("desfaz", "desfaca", "desfacam", "desfazer", "undo", "revert", "reverte", "reverta",
                         "reverter"))
# Said before the verb, they ask it politely: "pode desfazer …", "could you please undo …".
_ASKING = frozenset(("pode", "podes", "poderia", "consegue", "can", "could", "would", "you", "please", "voce", "vc",
                     "por", "favor", "kindly", "just", "so", "tenta"))


def undo_opened(phrase: str) -> bool:
    """"Desfaça o que acabou de fazer, se faz favor", "undo that <child> you added", "desfaz aquele <filho>": a
    message that opens with an undo verb asks for the undo, whatever it says of what is undone (it names the
    last change: the undo is of that one, under its own confirmation)."""
    said = phrase.split()
    while said and said[0] in _ASKING:
        said = said[1:]
    # ("undo the <field> of 311 to 20": a value said after "to" asks for a change, no undo)
    valued = any(w.isdigit() and said[i - 1] in _BEFORE_A_VALUE for i, w in enumerate(said) if i)
    replied = said[:1] == ["revert"] and said[1:2] in (["with"], ["back"], ["on"], ["to"])  # "kindly revert with …"
    return len(said) > 1 and said[0] in UNDO_VERBS and not valued and not replied


_BEFORE_A_VALUE = frozenset(("to", "para", "pra", "em", "by", "for", "com", "with"))


def cancel_phrasings() -> frozenset[str]:
    """A cancel said as a verb and what it cancels, composed like the undo phrasings: "cancela essa
    operação", "anula o pedido", "abort this request", "scrap the whole thing"."""
    verbs = ["cancela", "cancele", "cancelar", "aborta", "aborte", "abortar", "anula", "anule", "anular", "esquece",
             "esqueca", "cancel", "abort", "scrap", "drop", "kill", "forget", "call off", "desconsidera",
             "desconsidere", "desconsiderar", "pode desconsiderar", "disregard", "please disregard",
             # "don't do that", "não faz isso", "I don't want to do that": a negated doing of it
             "don t do", "dont do", "do not do", "nao faz", "nao faca", "nao quero fazer", "don t want to do",
             "i don t want to do", "i do not want to do", "i dont want to do"]
    objects = [f"{d} {n}" for d in ("essa", "esta", "a", "aquela")
               for n in ("operacao", "acao", "solicitacao", "tarefa")]
    objects += [f"{d} {n}" for d in ("esse", "este", "o", "aquele") for n in ("pedido", "comando", "processo")]
    objects += [f"{d} {n}" for d in ("this", "that", "the") for n in ("operation", "request", "action", "task", "one")]
    objects += ["isso", "isto", "tudo", "essa", "esse", "it", "that", "this", "everything", "the whole thing"]
    composed = {f"{v} {o}" for v in verbs for o in objects}
    # "don't do that yet", "não faz isso ainda": a negated doing, not now
    negated = [v for v in verbs if v.split()[0] in ("don", "dont", "do", "nao", "i")]
    composed |= {f"{v} {o} {t}" for v in negated for o in objects
                 for t in ("yet", "now", "for now", "right now", "ainda", "agora", "por enquanto", "por agora")}
    # "close that dialog without confirming", "fecha sem confirmar": the screen's card shut, nothing confirmed
    shut = [f"{v} {o}".strip() for v in ("close", "fecha", "fechar", "feche")
            for o in ("", "it", "that", "this", "that dialog", "the dialog", "this dialog", "isso", "a janela",
                      "essa janela")]
    composed |= {f"{c} {w}" for c in shut for w in ("without confirming", "sem confirmar")}
    return frozenset(composed)


def affirmations() -> frozenset[str]:
    """"that's right", "it is correct", "está certo", "é isso mesmo": the proposal on screen said to be
    right, a yes. "it's fine" / "it's ok" stay out: they also wave a request away ("it's fine, leave it")."""
    right = ("right", "correct", "exactly right", "it", "exactly it")
    en = {f"{s} {v} {a}" for s in ("that", "this", "it") for v in ("s", "is") for a in right}
    en |= {f"{s} {v} {a}" for s in ("that", "this") for v in ("s", "is") for a in ("fine", "good", "perfect")}
    en |= {f"{s}s {a}" for s in ("that", "it") for a in right}
    en |= {f"{y} {a}" for y in ("yes", "yeah", "yep", "ok", "okay") for a in list(en)}
    en |= {"exactly", "exactly that", "spot on", "looks right", "sounds right", "perfect", "fine by me",
           "works for me", "that works", "that will do", "go with that"}
    pt = {f"{v} {a}" for v in ("esta", "ta", "isso esta", "isso ta", "assim esta", "assim ta")
          for a in ("certo", "correto", "bom", "otimo", "perfeito", "certinho")}
    pt |= {"e isso", "e isso mesmo", "e isso ai", "e bem isso", "exatamente", "exatamente isso", "certinho",
           "pode ser assim", "assim mesmo", "desse jeito", "desse jeito mesmo"}
    pt |= {f"{y} {a}" for y in ("sim", "isso", "ok") for a in list(pt)}
    return frozenset(en | pt)


def kept_as_is() -> frozenset[str]:
    """"deixa ela como tá", "mantém assim", "leave it as it is": the item left as it is now, a no (the past
    tense — "deixa como estava" — puts back what was, an undo: not here)."""
    pt = {" ".join(f"{v} {o} {t}".split()) for v in ("deixa", "deixe", "mantem", "mantenha")
          for o in ("ela", "ele", "isso", "a", "o", "tudo", "")
          for t in ("como esta", "como ta", "do jeito que esta", "do jeito que ta", "assim", "quieto", "quieta",
                    "la", "ai", "onde esta", "onde ta")}
    en = {f"{v} {o} {t}" for v in ("leave", "keep") for o in ("it", "that", "everything", "them", "her", "him")
          for t in ("as it is", "as is", "like it is", "the way it is", "alone", "like that", "as they are", "there",
                    "where it is", "in")}
    return frozenset(pt | en)


def no_longer_wanted() -> frozenset[str]:
    """"I don't want this anymore", "I not want it" (as typed by a learner), "não quero mais isso", "não
    preciso mais disso": the wish behind the pending request withdrawn — a cancel."""
    en = {" ".join(f"{s} {n} {v} {o} {t}".split())
          for s in ("i", "we", "") for n in ("don t", "dont", "do not", "not", "no", "don t really")
          for v in ("want", "need") for o in ("this", "that", "it", "to", "")
          for t in ("anymore", "any more", "no more", "now", "after all", "")}
    en -= {"not", "no", "i not", "we not"}
    pt = {" ".join(f"{s} nao {v} {a} {o} {b}".split())
          for s in ("eu", "") for v in ("quero", "preciso", "vou querer")
          for a in ("mais", "") for o in ("isso", "disso", "isto", "")
          for b in ("mais", "nao", "")}
    return frozenset(w for w in en | pt if len(w.split()) >= 2)
