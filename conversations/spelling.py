"""Words typed in chat as a user says them, read as meant before anything else reads the message: a
misspelt unit after a number ("4 dyas"), pt-BR chat abbreviations ("qdo", "tb"), English question words
without their apostrophe ("whats"), shorthand prepositions ("w/ 318", "c/ 30 dias") and a misspelt weekday
after a word that announces a day ("next Monay"). Closed-class words only: no domain word is here."""

from __future__ import annotations

import re

from rapidfuzz.distance import OSA
from text_to_num import alpha2digit

from knowledge.text import fold

from .nominal import as_verbs
from .spanish_words import as_portuguese

# Units of a number, whose one-letter slips are read as the unit ("4 dyas", "10 dais", "2 semnas").
_UNIT_WORDS = ("dia", "dias", "day", "days", "semana", "semanas", "week", "weeks", "meses", "month", "months")
_NUMBER_THEN_WORD = re.compile(r"(\d+\s+)([^\W\d_]{4,9})\b")
# The same after a number in words ("adia em dois dais", "three dyas"); an article for one is left to the rule below.
_WORD_THEN_WORD = re.compile(r"(?i)\b((?!(?:um|uma|one|an?)\b)[^\W\d_]{3,9}\s+)([^\W\d_]{4,9})\b")
# "a weak", "uma semna": an article for one, then a slipped unit that ends the clause ("a weak point" is no week).
_ONE_THEN_WORD = re.compile(r"(?i)(\b(?:a|an|one|um|uma)\s+)([^\W\d_]{4,9})\b(?=\s*(?:$|[,.;!?]|(?:from|later|more|"
                            r"after|before|earlier|out|de|depois|antes|a mais)\b))")


# A message of only a thumbs-up, an OK or a check mark says yes; a thumbs-down or a cross says no (the words of
# both languages, so the message's language is kept by the words around it — there are none).
_EMOJI_ANSWERS = {"\U0001F44D": "sim", "\U0001F44C": "ok", "\u2705": "sim", "\u2714": "sim", "\U0001F197": "ok",
                  "\U0001F44E": "não", "\u274C": "não"}
_EMOJI_ONLY = re.compile(r"^\s*([\U0001F44D\U0001F44C\u2705\u2714\U0001F197\U0001F44E\u274C])"
                         r"[\U0001F3FB-\U0001F3FF\uFE0F\s]*$")


def emoji_answer(text: str) -> str | None:
    """"sim"/"ok"/"não" for a message of only a thumbs-up, an OK, a check mark, a thumbs-down or a cross."""
    answer = _EMOJI_ONLY.match(text)
    return _EMOJI_ANSWERS[answer.group(1)] if answer is not None else None


_SHOUTED_SHARE, _SHOUTED_LETTERS = 0.8, 8


def unshouted(text: str) -> str:
    """A message typed in capitals ("HOW MANY <ENTITIES> DOES <OWNER> HAVE. ALL OF THEM.") in lower case: the capitals
    say urgency, and would make every word look like a name or an acronym."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) < _SHOUTED_LETTERS or sum(c.isupper() for c in letters) < _SHOUTED_SHARE * len(letters):
        return text
    return text.lower()


def spelled_as_meant(text: str) -> str:
    """The message with a misspelt unit after a number written right; everything else as typed."""
    if (answer := emoji_answer(text)) is not None:  # "👍" alone: "sim"
        return answer
    def fix(match: re.Match[str]) -> str:
        word = fold(match.group(2))
        if word in _UNIT_WORDS or _a_number_word(word):  # "adia a 60 duas semanas": "duas" is no "dias"
            return match.group(0)
        near = next((u for u in _UNIT_WORDS if len(u) >= 4 and OSA.distance(word, u, score_cutoff=1) <= 1), None)
        return match.group(1) + near if near else match.group(0)
    text = _EMPHASIS.sub("", _GLUED_UNIT.sub(r"\1 \2", text))  # "**reschedule** `52`", "60dias"
    text = as_portuguese(text)  # "abre la <entidade> 52", "sacar … de los <filhos>"
    text = _UNIT_SLIP.sub(lambda m: m.group(1) + _UNIT_SLIPS[m.group(2).lower()], text)  # "5 dis"
    text = _WORD_BEFORE_UNIT.sub(_number_word_fixed, text)  # "daqui qiunze dias"
    text = _ONE_THEN_WORD.sub(fix, text)  # "push it back a weak": one unit, at the end of what is said
    text = _DOUBLED_A.sub(r"\1", _STRETCHED.sub(r"\1\2", text))  # "bom diaa", "valeuuu", "simmm"
    text = _GLUED_MARK.sub(r"\1 \2", _CHAT_WORD.sub(lambda m: _CHAT_WORDS[m.group(0)], text))
    text = _NUMBER_SIGN_OF.sub("number ", text)
    text = _QUESTION_CONTRACTION.sub(lambda m: _QUESTION_CONTRACTIONS[m.group(0).lower()], text)
    text = as_verbs(text)  # "solicito a exclusão da <entidade> 311" → "solicito excluir a <entidade> 311"
    text = _WORD_THEN_WORD.sub(lambda m: fix(m) if _a_number_word(fold(m.group(1).strip())) else m.group(0), text)
    text = _SHORT_WEEKDAY.sub(lambda m: m.group(1) + _SHORT_WEEKDAYS[m.group(2).lower()], text)
    return _SHORTHAND.sub(_expanded, _WEEKDAY_AFTER_MARKER.sub(_weekday_fixed, _NUMBER_THEN_WORD.sub(fix, text)))


# A word's last letter stretched as chat stretches it, lower case only (a name keeps its letters): three or more of
# it, or a final "aa" (no word of either language ends so: "diaa", "obrigadaa").
_STRETCHED = re.compile(r"(?<![\w/])([a-zà-ü]*?)([a-zà-ü])\2{2,}(?![\w/])")
_DOUBLED_A = re.compile(r"(?<![\w/])([a-zà-ü]+a)a(?![\w/])")


# Markdown a chat may carry ("**move** <entity> `52` to _12 days from now_"): emphasis, never words.
_EMPHASIS = re.compile(r"[*`]+|(?<![\w])_+|_+(?![\w])")
# A unit glued to its number: "60dias", "20days", "3semanas".
_GLUED_UNIT = re.compile(r"(?i)\b(\d+)(dias?|days?|semanas?|weeks?)\b")
# Units too short for the one-slip rule below (four letters or more): "5 dis", "3 dys".
_UNIT_SLIPS = {"dis": "dias", "dys": "days", "dya": "day"}
_UNIT_SLIP = re.compile(r"(?i)(\d+\s+)(" + "|".join(_UNIT_SLIPS) + r")\b")
# A number's word slipped right before a unit ("qiunze dias", "twnety days"): read as that number's word.
_NUMBER_WORDS = ("quinze", "dezesseis", "dezessete", "dezoito", "dezenove", "vinte", "trinta", "quarenta",
                 "cinquenta", "sessenta", "setenta", "oitenta", "noventa", "fifteen", "sixteen", "seventeen",
                 "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
                 "quatorze", "catorze", "fourteen", "thirteen", "twelve", "eleven")
_WORD_BEFORE_UNIT = re.compile(r"(?i)\b([^\W\d_]{5,10})(\s+(?:dias?|days?|semanas?|weeks?)\b)")


def _number_word_fixed(match: re.Match[str]) -> str:
    word = fold(match.group(1))
    if _a_number_word(word):
        return match.group(0)
    near = next((n for n in _NUMBER_WORDS if OSA.distance(word, n, score_cutoff=1) <= 1), None)
    return (near + match.group(2)) if near else match.group(0)


def _a_number_word(word: str) -> bool:
    return any(alpha2digit(word, language, threshold=0) != word for language in ("pt", "en"))


# Weekdays typed short: in lower case among the chat words below ("this fri"), and in any case after a word that
# announces a day ("next Tue", "by Fri."; alone, a capitalised "Sun" or "Mon" may be a name).
_SHORT_WEEKDAYS = {"mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday",
                   "thur": "thursday", "thurs": "thursday", "fri": "friday", "sat": "saturday", "sun": "sunday"}


# Chat abbreviations of pt-BR function words ("qdo q é", "qts tem", "a 311 tb", "hj") and chat slang of both
# languages ("blz", "vlw", "kinda", "wanna"), typed in lower case:
# only the lower-case word is read as one, so a name's capital letter ("Bloco Q") stays a name.
_CHAT_WORDS = {"qdo": "quando", "qndo": "quando", "qnd": "quando", "q": "que", "qts": "quantas", "qnts": "quantas",
               "qtas": "quantas", "qtos": "quantos", "tb": "também", "tbm": "também", "hj": "hoje", "pq": "por que",
               "td": "tudo", "msm": "mesmo", "cmg": "comigo", "ngm": "ninguém", "mto": "muito", "mt": "muito",
               # chat slang for a yes, a thanks: "blz", "vlw, tmj", "obg", "flw"
               "blz": "beleza", "blza": "beleza", "vlw": "valeu", "vlww": "valeu", "tmj": "tamo junto",
               "obg": "obrigado", "brigadao": "obrigado", "brigadão": "obrigado", "flw": "falou",
               # English spoken contractions: "kinda", "wanna", "gonna", "lemme", "whatcha", "can u"
               "kinda": "kind of", "sorta": "sort of", "wanna": "want to", "gonna": "going to", "gotta": "got to",
               "lemme": "let me", "gimme": "give me", "whatcha": "what are you", "u": "you",
               # English chat abbreviations: "nvm", "pls", "plz"; pt-BR "pfv", "vc", "qto"
               "nvm": "never mind", "nvmd": "never mind", "pls": "please", "plz": "please", "opn": "open",
               "pfv": "por favor", "vc": "você", "vcs": "vocês", "qto": "quanto", "qta": "quanta",
               "qtd": "quantidade", "qm": "quem", "vdd": "verdade", "nvdd": "na verdade", "oq": "o que",
               "oque": "o que", "kd": "cadê", "amnh": "amanhã", "amnha": "amanhã", "ñ": "não", "dps": "depois",
               "pfvr": "por favor", "agr": "agora", "qlq": "qualquer", "qq": "qualquer",
               # units typed short: "push it back a wk", "2 wks"
               "wk": "week", "wks": "weeks",
               # days typed short: "can u move it to 2moro", "amanha", "this fri"
               "2moro": "tomorrow", "2morrow": "tomorrow", "tmrw": "tomorrow", "tmr": "tomorrow",
               "tmw": "tomorrow", "2day": "today", "sry": "sorry", "srry": "sorry", "qntas": "quantas",
               "qntos": "quantos", "qnto": "quanto",
               "qnt": "quanto", "qnta": "quanta", "qty": "number", "qtys": "numbers",
               # "this fri": a weekday typed short (not "sat"/"sun": words of their own in lower case too)
               **{short: day for short, day in _SHORT_WEEKDAYS.items() if short not in ("sat", "sun")}}
_CHAT_WORD = re.compile(r"(?<![\w/])(?:" + "|".join(sorted(_CHAT_WORDS, key=len, reverse=True)) + r")(?![\w/])")


# A number mark typed against its number ("nº84", "#75", "n°12"): the mark, then the number.
_GLUED_MARK = re.compile(r"(?i)(?<!\w)(n\.?[º°]|#)(\d)")
# "# of scheduled <entities>": the sign said as its words.
_NUMBER_SIGN_OF = re.compile(r"(?i)(?<![\w#])#\s*(?=of\b)")


# English question words typed without the apostrophe or phonetically ("whats the …", "wats", "whos on …"): a
# question word, in any case ("Whats …" opens a sentence) — no name is spelt so.
_QUESTION_CONTRACTIONS = {"whats": "what's", "wats": "what's", "wots": "what's", "wat": "what", "wut": "what",
                          "whos": "who's", "wheres": "where's", "whens": "when's", "hows": "how's"}
_QUESTION_CONTRACTION = re.compile(r"(?<![\w'])(?:" + "|".join(sorted(_QUESTION_CONTRACTIONS, key=len, reverse=True))
                                   + r")(?![\w'])", re.IGNORECASE)


# Chat shorthand typed for a preposition: "w/ 318", "w/o a <field>", "c/ 30 dias", "s/ <campo>".
_SHORTHAND = re.compile(r"(?<![\w/])([wcs])/(o\b)?(?=\s|\w)", re.IGNORECASE)
_SHORTHANDS = {"w": "with ", "wo": "without ", "c": "com ", "s": "sem "}


def _expanded(match: re.Match[str]) -> str:
    return _SHORTHANDS.get(match.group(1).lower() + ("o" if match.group(2) else ""), match.group(0))


# "next Monay", "na proxima segnda": a weekday of six letters or more with one slip, after a word that
# announces a day (shorter weekdays are too close to other words: "terça"/"cerca").
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "segunda", "sabado",
             "domingo")
_WEEKDAY_AFTER_MARKER = re.compile(r"\b((?:next|last|this|on|until|by|proxima|próxima|proximo|próximo|na|no|"
                                   r"ate|até)\s+)([^\W\d_]{5,10})\b", re.IGNORECASE)


# …and after a word that announces a day, in any case.
_SHORT_WEEKDAY = re.compile(r"(?i)\b((?:next|this|on|by|until|till|before|after|to|for)\s+)(" + "|".join(
    sorted(_SHORT_WEEKDAYS, key=len, reverse=True)) + r")\b\.?")


def _weekday_fixed(match: re.Match[str]) -> str:
    word = fold(match.group(2))
    if word in _WEEKDAYS:
        return match.group(0)
    near = next((d for d in _WEEKDAYS if OSA.distance(word, d, score_cutoff=1) <= 1), None)
    return match.group(1) + near if near else match.group(0)
