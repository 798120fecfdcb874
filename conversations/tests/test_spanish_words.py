"""spanish_words.as_portuguese: Spanish function words read as Portuguese; the Portuguese "lá" and a lone "y" kept."""

import pytest

from conversations.spanish_words import as_portuguese


@pytest.mark.parametrize(("text", "read"), [
    ("abre la inspeção 52", "abre a inspeção 52"),
    ("sacar Rafael de los trabajadores", "tirar Rafael dos trabajadores"),
    ("y de la 51?", "e da 51?"),
    ("adiar ela una semana", "adiar ela uma semana"),
    ("poner a Tiago como inspetor entonces", "põe a Tiago como inspetor então"),
    ("cuantos achados tem en la 51", "quantos achados tem na 51"),
    ("Crear una inspeção. Agregar un achado", "criar uma inspeção. adicionar um achado"),
    # kept: the Portuguese "lá", a lone "y" (a yes), a name's capital letters
    ("me joga la na tela", "me joga la na tela"),
    ("deixa la", "deixa la"),
    ("y", "y"),
    ("abre a permissão da Con Engenharia", "abre a permissão da Con Engenharia"),
])
def test_spanish_function_words_are_read_as_portuguese(text, read):
    assert as_portuguese(text) == read
