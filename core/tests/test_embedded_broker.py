"""The embedded broker hands out whole messages only, however writers and readers
interleave."""

import multiprocessing
import time

import pytest
from kombu import Connection
from kombu.transport.virtual import Empty

from core.broker import Transport

TOTAL, WRITERS = 300, 3


def _connection(folder: str, transport=Transport) -> Connection:
    return Connection(
        "filesystem://",
        transport=transport,
        transport_options={
            "data_folder_in": folder,
            "data_folder_out": folder,
            "store_processed": False,
        },
    )


def _write(folder: str, offset: int) -> None:
    with _connection(folder) as connection:
        channel = connection.default_channel
        for n in range(offset, TOTAL, WRITERS):
            # Large enough that a write takes a while: a reader that could see a
            # message before its bytes would, often.
            channel._put("celery", {"n": n, "pad": "x" * 200_000})


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "queue").mkdir()
    return str(tmp_path / "queue")


def test_a_message_being_written_is_not_taken(folder):
    with _connection(folder) as connection:
        channel = connection.default_channel
        channel._put("celery", {"n": 1})
        # A draft: what a writer leaves while its bytes are still coming.
        with open(f"{folder}/.0_draft.celery.msg.part", "wb"):
            assert channel._get("celery")["n"] == 1
            with pytest.raises(Empty):
                channel._get("celery")


def test_a_reader_racing_writer_processes_gets_every_message_whole(folder):
    writers = [
        multiprocessing.get_context("spawn").Process(target=_write, args=(folder, i))
        for i in range(WRITERS)
    ]
    for writer in writers:
        writer.start()
    received = []
    deadline = time.monotonic() + 60
    with _connection(folder) as connection:
        channel = connection.default_channel
        while len(received) < TOTAL:
            try:
                message = channel._get("celery")
            except Empty:
                assert time.monotonic() < deadline, f"{len(received)} of {TOTAL} arrived"
                continue
            assert len(message["pad"]) == 200_000
            received.append(message["n"])
    for writer in writers:
        writer.join(timeout=30)
    assert sorted(received) == list(range(TOTAL))
