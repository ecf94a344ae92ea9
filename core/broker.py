"""The embedded broker: kombu's filesystem transport, with messages that appear whole.

kombu writes a message file where consumers look for it (create, lock, write), and a
consumer moves and reads a file without taking that lock. A consumer that comes
between the create and the write reads an empty file, fails to decode it and takes
the whole worker down. Here a message is written under a name consumers skip and
renamed into place when complete; a rename within one folder is atomic, so a
consumer sees all of a message or none of it.
"""

import os
import uuid
from time import monotonic

from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # Consumers take only "<stamp>.<queue>.msg": a leading dot hides the draft.
        draft = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(draft, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(draft, final)
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel


def install() -> None:
    """Make `filesystem://` mean this transport in this process."""
    TRANSPORT_ALIASES["filesystem"] = f"{__name__}:Transport"
