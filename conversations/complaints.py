"""Complaints about the last answer or proposal, as typed in both languages (folded like the control phrases).
Read as a no to what waits (control_phrases.DECLINE), and, before another request, as the user's complaint only
(runtime reads what follows it)."""

from __future__ import annotations

from knowledge.text import fold, words

# "não era isso", "that's not what I asked": the last answer or proposal was not what was meant — a no to what waits,
# and, before another request, only the user's complaint (runtime reads what follows it).
COMPLAINTS = frozenset(" ".join(words(fold(line))) for line in """
nao era isso
nao e isso
nao foi isso
nao foi isso que eu pedi
nao era isso que eu pedi
nao foi isso que eu perguntei
nao era isso que eu perguntei
nao foi o que eu pedi
nao foi o que eu perguntei
not what i asked
not what i asked for
not what i meant
thats not it
that s not it
thats not what i asked
that s not what i asked
thats not what i asked for
that s not what i asked for
not that
""".strip().splitlines() if line.strip())
