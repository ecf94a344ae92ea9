import pytest
from django.core.files.storage import default_storage


@pytest.fixture(autouse=True)
def evidence_storage(settings, tmp_path):
    """Each test gets its own private storage, so "nothing stored" can be checked as
    "the storage is empty"."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "private-media"), "base_url": None},
        },
    }
    return default_storage
