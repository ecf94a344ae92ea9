from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import TerminalAPIView, page_query, parse_query
from core.client_address import client_ip
from core.fields import AmountField, ClientOrderIdField, FormUrlField, TrimmedTextField
from core.idempotency import idempotent
from core.pagination import paginate
from core.schema import any_case_pattern, page_schema
from finance.models import ButtonName, Currency, Side
from orders.services import CUSTOMER_BANKS

from . import selectors, services
from .models import SessionState
from .render import render_created, render_item


@extend_schema_field({"type": "string", "enum": [Side.BUY], "description": "Only Buy"})
class FormSideField(serializers.ChoiceField):
    """Sell is read and refused by the service with its own message (400)."""

    def __init__(self, **kwargs):
        super().__init__(choices=Side.choices, **kwargs)


@extend_schema_field(
    {
        "type": "string",
        "nullable": True,
        "pattern": any_case_pattern(ButtonName.values),
        "description": "Any letter case. A button the terminal does not offer is 400 "
        "`button_not_offered` (Demo Shop offers SberPay, TPay and AlfaPay).",
    }
)
class ButtonNameField(serializers.CharField):
    pass


@extend_schema_field(
    {
        "type": "string",
        "nullable": True,
        "pattern": any_case_pattern(sorted(CUSTOMER_BANKS)),
        "description": "Preselected bank, any letter case",
    }
)
class CustomerBankField(serializers.CharField):
    pass


class FormOrderDataIn(serializers.Serializer):
    client_order_id = ClientOrderIdField()
    order_side = FormSideField()
    button_name = ButtonNameField(required=False, allow_null=True, max_length=20)
    amount = AmountField()
    user_id = TrimmedTextField(required=False, allow_null=True, max_length=255)
    unique_amount = serializers.BooleanField(required=False, allow_null=True, default=False)
    customer_bank = CustomerBankField(required=False, allow_null=True, max_length=30)


class FormCreateIn(serializers.Serializer):
    order_data = FormOrderDataIn()
    redirect_url = FormUrlField()
    support_url = FormUrlField()
    return_url = FormUrlField()


class FormOrderDataOut(serializers.Serializer):
    client_order_id = serializers.CharField()
    order_side = serializers.CharField()
    payment_method_id = serializers.CharField(allow_null=True)
    amount = serializers.CharField()
    customer_bank = serializers.CharField(allow_null=True)
    unique_amount = serializers.BooleanField()


FormCreated = inline_serializer(
    "FormSessionCreated",
    {
        "success": serializers.BooleanField(),
        "message": serializers.CharField(allow_null=True),
        "form_data": inline_serializer(
            "FormData",
            {
                "session_id": serializers.CharField(),
                "form_url": serializers.URLField(),
                "order_data": FormOrderDataOut(),
                "support_url": serializers.CharField(allow_null=True),
                "redirect_url": serializers.CharField(allow_null=True),
                "return_url": serializers.CharField(allow_null=True),
            },
        ),
    },
)


class FormSessionOut(serializers.Serializer):
    session_id = serializers.CharField()
    ip_address = serializers.CharField(allow_null=True)
    client_order_id = serializers.CharField()
    terminal_id = serializers.CharField()
    order_side = serializers.CharField()
    amount = serializers.CharField()
    payment_method_type = serializers.CharField(allow_null=True)
    nspk_code = serializers.CharField(allow_null=True)
    order_id = serializers.CharField(allow_null=True)
    redirect_url = serializers.CharField(allow_null=True)
    support_url = serializers.CharField(allow_null=True)
    return_url = serializers.CharField(allow_null=True)
    search_count = serializers.IntegerField()
    merchant_name = serializers.CharField()
    currency = serializers.CharField()
    selection = serializers.BooleanField()
    created_at = serializers.CharField()
    updated_at = serializers.CharField()
    unique_amount = serializers.BooleanField()
    user_id = serializers.CharField(allow_null=True)
    state = serializers.ChoiceField(choices=SessionState.choices)
    requisites_request_starts_at = serializers.CharField()
    requisites_request_expires_at = serializers.CharField()
    payment_confirmation_starts_at = serializers.CharField(allow_null=True)
    payment_confirmation_expires_at = serializers.CharField(allow_null=True)
    expires_at = serializers.CharField()


class FormCreateView(TerminalAPIView):
    @extend_schema(operation_id="form_create", request=FormCreateIn, responses={201: FormCreated})
    def post(self, request):
        return idempotent(request, self, lambda: self._create(request))

    def _create(self, request):
        data = FormCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        o = v["order_data"]
        session = services.session_create(
            terminal=self.terminal,
            client_order_id=o["client_order_id"],
            order_side=o["order_side"],
            amount=o["amount"],
            button_name=o.get("button_name"),
            customer_bank=o.get("customer_bank"),
            unique_amount=bool(o.get("unique_amount")),
            user_id=o.get("user_id"),
            ip_address=client_ip(request),
            redirect_url=v.get("redirect_url"),
            support_url=v.get("support_url"),
            return_url=v.get("return_url"),
        )
        return Response(render_created(session), status=201)


class FormSearchQuery(page_query(10)):
    # An id that names nothing finds nothing; only enums and paging are refused.
    order_id = serializers.CharField(required=False, max_length=255, trim_whitespace=False)
    client_order_id = serializers.CharField(required=False, max_length=64, trim_whitespace=False)
    terminal_id = serializers.CharField(required=False, max_length=255, trim_whitespace=False)
    session_id = serializers.CharField(required=False, max_length=255, trim_whitespace=False)
    state = serializers.ChoiceField(choices=SessionState.choices, required=False)
    currency = serializers.ChoiceField(choices=Currency.choices, required=False)


class FormSearchView(TerminalAPIView):
    @extend_schema(
        operation_id="form_search",
        parameters=[FormSearchQuery],
        responses=page_schema("FormSessionPage", FormSessionOut(many=True)),
    )
    def get(self, request):
        q = parse_query(FormSearchQuery, request)
        qs = selectors.session_search(
            terminal=self.terminal,
            order_id=q.get("order_id"),
            terminal_id=q.get("terminal_id"),
            client_order_id=q.get("client_order_id"),
            session_id=q.get("session_id"),
            currency=q.get("currency"),
            state=q.get("state"),
        )
        return Response(
            paginate(
                qs,
                page=q["page"],
                size=q["size"],
                render=lambda rows: [render_item(s) for s in rows],
            )
        )
