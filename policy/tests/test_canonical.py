from __future__ import annotations

import unicodedata

import pytest

from policy.canonical import CanonicalizationError, canonical_input_hash

CAFE_NFC = unicodedata.normalize("NFC", "Café")
CAFE_NFD = unicodedata.normalize("NFD", "Café")


def test_key_order_does_not_change_the_hash():
    assert canonical_input_hash({"a": 1, "b": [1, 2]}) == canonical_input_hash({"b": [1, 2], "a": 1})
    assert canonical_input_hash(b'{"a":1,"b":[1,2]}') == canonical_input_hash(b'{ "b" : [1,2], "a" : 1 }')


def test_nfc_and_nfd_spellings_hash_the_same():
    assert CAFE_NFC != CAFE_NFD
    assert canonical_input_hash({"name": CAFE_NFC}) == canonical_input_hash({"name": CAFE_NFD})
    assert canonical_input_hash({CAFE_NFD: 1}) == canonical_input_hash({CAFE_NFC: 1})


def test_number_forms_hash_the_same():
    assert canonical_input_hash(b'{"d": 1}') == canonical_input_hash(b'{"d": 1.0}') == canonical_input_hash(
        b'{"d": 1e0}') == canonical_input_hash({"d": 1})


def test_any_value_change_changes_the_hash():
    base = canonical_input_hash({"validity_days": 10, "note": "abc"})
    assert canonical_input_hash({"validity_days": 11, "note": "abc"}) != base
    assert canonical_input_hash({"validity_days": 10, "note": "abd"}) != base
    assert canonical_input_hash({"validity_days": "10", "note": "abc"}) != base
    assert canonical_input_hash(b'{"validity_days": 10, "note": "abc"}') == base


@pytest.mark.parametrize("raw", [
    b'{"id": 1, "id": 2}',
    b'{"a": {"x": 1, "x": 1}}',
    ('{"' + CAFE_NFC + '": 1, "' + CAFE_NFD + '": 2}').encode(),
    b'{"d": NaN}',
    b'{"d": Infinity}',
    b'{"d": 1e400}',
    b'{"id": 9007199254740993}',
    b'[1, 2]',
    b'{"a": ',
    b'\xff\xfe',
])
def test_inputs_without_one_canonical_form_fail_closed(raw):
    with pytest.raises(CanonicalizationError):
        canonical_input_hash(raw)


def test_non_json_values_in_a_mapping_fail_closed():
    with pytest.raises(CanonicalizationError):
        canonical_input_hash({"when": object()})
    with pytest.raises(CanonicalizationError):
        canonical_input_hash({1: "int key"})
