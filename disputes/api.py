from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import (
    DateRangeMixin,
    StrictBooleanField,
    TerminalAPIView,
    ok,
    page_query,
    parse_query,
)
from core.errors import InvalidRequest
from core.fields import FormAmountField, TrimmedTextField
from core.idempotency import idempotent
from core.pagination import paginate
from core.parsers import CheckedFormParser, CheckedMultiPartParser
from core.schema import page_schema
from core.uploads import MAX_UPLOAD_TEXT, UploadSizeLimit

from . import selectors, services


class DisputeCreateIn(serializers.Serializer):
    # No length limit: a malformed id names no order and is a 404 like an unknown one.
    order_id = TrimmedTextField()
    amount = FormAmountField()
    files = serializers.ListField(child=serializers.FileField(), required=False, allow_empty=True)


class DisputeCreatedOut(serializers.Serializer):
    order_id = serializers.CharField()
    dispute_id = serializers.CharField()
    dispute_files = serializers.ListField(child=serializers.CharField())


class DisputeCreateView(TerminalAPIView):
    parser_classes = [CheckedMultiPartParser, CheckedFormParser]

    @extend_schema(
        operation_id="dispute_create",
        request={"multipart/form-data": DisputeCreateIn},
        description="Opens a dispute on one of the caller's orders. Rules the schema "
        "cannot express, each answered as shown: a second dispute on the same order is "
        "400 `dispute_exists`; an order of another terminal is 403; `amount` above the "
        "maximum of the order's method range for its side is 400; more than 5 files 400, "
        f"a file over {MAX_UPLOAD_TEXT} 413, a file whose content is not an image, a PDF or a video "
        "415 (judged from the bytes, not the declared type).",
        responses={201: DisputeCreatedOut},
    )
    def post(self, request):
        # Before anything reads the body (the idempotency fingerprint does).
        request.upload_handlers.insert(
            0, UploadSizeLimit(request._request, limit=services.MAX_FILE_BYTES)
        )
        return idempotent(request, self, lambda: self._create(request))

    def _create(self, request):
        # Only the parts that came: a missing one is "required", not "null".
        sent = {name: request.data.get(name) for name in ("order_id", "amount")}
        data = DisputeCreateIn(data={k: v for k, v in sent.items() if v is not None})
        data.is_valid(raise_exception=True)
        if request.POST.getlist("files"):
            # A `files` part without a file name is text, not evidence.
            raise InvalidRequest(
                "Invalid files: every part named files must be a file",
                errors={"files": ["Must be a file upload, not a text field"]},
            )
        dispute = services.dispute_open(
            terminal=self.terminal,
            order_id=data.validated_data["order_id"],
            amount=data.validated_data["amount"],
            files=request.FILES.getlist("files"),
        )
        body = {
            "order_id": str(dispute.order_id),
            "dispute_id": str(dispute.pk),
            "dispute_files": [f.file.name for f in dispute.files.order_by("pk")],
        }
        return Response(body, status=201)


class DisputeSearchQuery(page_query(10), DateRangeMixin):
    order_id = TrimmedTextField(required=False, max_length=64)
    dispute_id = TrimmedTextField(required=False, max_length=32)
    processed = StrictBooleanField(required=False)


class DisputeItemOut(serializers.Serializer):
    dispute_id = serializers.CharField()
    order_id = serializers.CharField()
    client_order_id = serializers.CharField()
    amount = serializers.FloatField()
    currency = serializers.CharField()
    processed = serializers.BooleanField()
    resolution = serializers.CharField(allow_null=True)
    created_at = serializers.CharField()


class DisputeSearchView(TerminalAPIView):
    @extend_schema(
        operation_id="dispute_search",
        parameters=[DisputeSearchQuery],
        responses=inline_serializer(
            "DisputePage",
            {
                "success": serializers.BooleanField(),
                "message": serializers.CharField(),
                "data": page_schema("DisputePageBody", DisputeItemOut(many=True)),
            },
        ),
    )
    def get(self, request):
        q = parse_query(DisputeSearchQuery, request)
        qs = selectors.dispute_search(
            terminal=self.terminal,
            order_id=q.get("order_id"),
            dispute_id=q.get("dispute_id"),
            processed=q.get("processed"),
            start_date=q.get("start_date"),
            end_date=q.get("end_date"),
        )
        page = paginate(
            qs,
            page=q["page"],
            size=q["size"],
            render=lambda rows: [services.render_dispute(d) for d in rows],
        )
        return Response(ok(data=page))
