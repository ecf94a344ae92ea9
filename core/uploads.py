"""Dispute evidence and payers' receipts arrive as multipart uploads. Django streams anything over
FILE_UPLOAD_MAX_MEMORY_SIZE to a temporary file; this handler also bounds what that
file may hold, so a huge upload costs at most the limit (plus one chunk) of disk."""

from django.core.files.uploadhandler import FileUploadHandler

# The one size limit of an uploaded file (a dispute's evidence, a payer's receipt):
# exactly this many bytes is accepted. Messages name it as MAX_UPLOAD_TEXT.
MAX_UPLOAD_MB = 5
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024
MAX_UPLOAD_TEXT = f"{MAX_UPLOAD_MB} MB"


class UploadSizeLimit(FileUploadHandler):
    """Passes each file's chunks on to the usual handlers until the file is past
    `limit`, then drops the rest. The chunk that crosses the limit is kept, so the
    stored size still shows the file was too large and the view refuses it."""

    def __init__(self, request=None, *, limit: int):
        super().__init__(request)
        self.limit = limit
        self.seen = 0

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.seen = 0

    def receive_data_chunk(self, raw_data, start):
        already = self.seen
        self.seen += len(raw_data)
        return raw_data if already <= self.limit else None

    def file_complete(self, file_size):
        return None  # the next handler builds the file
