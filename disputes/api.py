from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from orders.api import FormAmountField
from paymentsvc.api import (
    DateRangeMixin,
    StrictBooleanField,
    TerminalAPIView,
    ok,
    page_query,
    paginate,
    parse_query,
)
from paymentsvc.errors import InvalidRequest
from paymentsvc.formats import parse_uuid
from paymentsvc.idempotency import idempotent
from paymentsvc.parsers import CheckedFormParser, CheckedMultiPartParser
from paymentsvc.schema import page_schema

from . import services
from .models import Dispute
from .uploads import EvidenceSizeLimit


class DisputeCreateIn(serializers.Serializer):
    # No length limit: a malformed id names no order and is a 404 like an unknown one.
    order_id = serializers.CharField()
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
        "a file over 5 MB 413, a file whose content is not an image, a PDF or a video "
        "415 (judged from the bytes, not the declared type).",
        responses={201: DisputeCreatedOut},
    )
    def post(self, request):
        # Before anything reads the body (the idempotency fingerprint does).
        request.upload_handlers.insert(
            0, EvidenceSizeLimit(request._request, limit=services.MAX_FILE_BYTES)
        )
        return idempotent(request, self, lambda: self._create(request))

    def _create(self, request):
        data = DisputeCreateIn(
            data={"order_id": request.data.get("order_id"), "amount": request.data.get("amount")}
        )
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


def _dispute_pk(value: str) -> int | None:
    """A dispute id that cannot name a row (not digits, past the column's range) is no match."""
    if value.isascii() and value.isdigit() and 0 < int(value) < 2**63:
        return int(value)
    return None


class DisputeSearchQuery(page_query(10), DateRangeMixin):
    order_id = serializers.CharField(required=False, max_length=64)
    dispute_id = serializers.CharField(required=False, max_length=32)
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
        qs = Dispute.objects.filter(terminal=self.terminal)
        if "order_id" in q:
            order_uuid = parse_uuid(q["order_id"])
            qs = qs.filter(order_id=order_uuid) if order_uuid else qs.none()
        if "dispute_id" in q:
            qs = (
                qs.filter(pk=dispute_pk)
                if (dispute_pk := _dispute_pk(q["dispute_id"]))
                else qs.none()
            )
        if "processed" in q:
            qs = qs.filter(processed=q["processed"])
        if q.get("start_date"):
            qs = qs.filter(created_at__gte=q["start_date"])
        if q.get("end_date"):
            qs = qs.filter(created_at__lte=q["end_date"])
        qs = qs.select_related("order").order_by("-created_at", "-pk")
        page = paginate(
            qs,
            page=q["page"],
            size=q["size"],
            render=lambda rows: [services.render_dispute(d) for d in rows],
        )
        return Response(ok(data=page))
