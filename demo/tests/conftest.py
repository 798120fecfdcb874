import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    # The seeder hashes one password per demo user; PBKDF2 at production cost would dominate.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
