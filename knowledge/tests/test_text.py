from knowledge.text import detect_language, fold, index_terms, query_terms, sentences, slugify


def test_portuguese_plural_and_singular_share_a_stem():
    assert index_terms("permissões", "pt") == index_terms("Permissão", "pt")
    assert index_terms("escavações", "pt") == index_terms("ESCAVAÇÃO", "pt")
    assert index_terms("trabalhadores", "pt") == index_terms("trabalhador", "pt")


def test_english_inflections_share_a_stem():
    assert index_terms("welding permits", "en") == index_terms("weld permit", "en")


def test_accents_and_case_do_not_matter():
    assert index_terms("Içamento", "pt") == index_terms("icamento", "pt")
    assert fold("  Espaço   CONFINADO ") == "espaco confinado"


def test_a_query_word_matches_documents_in_either_language():
    [stems] = query_terms("validity")
    assert {"valid"} <= stems


def test_explanation_requests_have_no_content_words():
    assert query_terms("Explique esse componente") == []
    assert query_terms("O que significa isso?") == []
    assert query_terms("Explain this field") == []
    # the words of asking how something works, for whom, or with a slip ("pleae"): still no topic
    assert query_terms("Me explica como funciona pra mim") == []
    assert query_terms("could you pleae explain") == []
    # a slip of a topic word is the topic: only the words of asking are read through a slip
    assert len(query_terms("estadi righr")) == 2


def test_language_detection_tells_portuguese_from_english():
    assert detect_language("O que é trabalho a quente?") == "pt"
    assert detect_language("What is hot work?") == "en"
    assert detect_language("Içamento") == "pt"


def test_sentences_split_at_full_stops_not_inside_norm_names():
    assert sentences("É regulamentado pela NR-35. O padrão é de 30 dias.") == [
        "É regulamentado pela NR-35.", "O padrão é de 30 dias."
    ]


def test_slug_is_ascii_and_stable():
    assert slugify("Status e aprovação") == "status-e-aprovacao"
