"""The control phrases that run again what stopped: retry (a failed step) and resume (a paused plan), in both
languages, folded like the other control phrases (control_phrases.py)."""

from __future__ import annotations

from knowledge.text import fold, words


def _set(text: str) -> frozenset[str]:
    return frozenset(" ".join(words(fold(line))) for line in text.strip().splitlines() if line.strip())


RETRY = _set("""
tente novamente
tenta novamente
tente de novo
tenta de novo
tentar novamente
tentar de novo
de novo
novamente
repete
repita
refaca
refaz
try again
retry
try it again
again
redo
one more time
""")
RESUME = _set("""
continue
continua
continuar
retome
retoma
retomar
retomar operacao
resume
carry on
continue please
""")
