from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import (
    DateRangeMixin,
    KeptFieldsSerializer,
    TerminalAPIView,
    ok,
    page_query,
    parse_query,
    period_check,
)
from core.client_address import client_ip
from core.fields import (
    AmountField,
    ClientOrderIdField,
    FormUrlField,
    HttpUrlField,
    TrimmedTextField,
)
from core.idempotency import idempotent
from core.pagination import PageAsked
from core.schema import any_case_pattern, capped_page_schema, page_schema
from finance.models import WEBHOOK_URL_MAX_LENGTH, IntegrationType, MethodType, Side
from webhooks.guard import DeliveryRefused, resolve_target

from . import selectors, services
from .list_page import order_list_page, orders_by_client_order_id
from .models import OrderStatus
from .render import (
    render_order,
    render_rows,
)

# --- Merchant API -----------------------------------------------------------------------


class OrderCreateIn(KeptFieldsSerializer):
    client_order_id = ClientOrderIdField()
    order_side = serializers.ChoiceField(choices=Side.choices)
    payment_method_id = TrimmedTextField(required=False, allow_null=True, max_length=64)
    method_type = serializers.ChoiceField(
        choices=MethodType.choices, required=False, allow_null=True
    )
    nspk_code = TrimmedTextField(required=False, allow_null=True, max_length=20)
    amount = AmountField()
    customer_name = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=200
    )
    # Blank is "not given": a Sell without it gets the contract's own message.
    customer_account = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=64
    )
    user_id = TrimmedTextField(required=False, allow_null=True, max_length=255)
    webhook_url = HttpUrlField(url_max_length=WEBHOOK_URL_MAX_LENGTH)
    unique_amount = serializers.BooleanField(required=False, allow_null=True, default=False)
    redirect_url = FormUrlField()
    support_url = FormUrlField()
    return_url = FormUrlField()
    customer_bank = serializers.CharField(required=False, allow_null=True, max_length=30)

    def validate_webhook_url(self, value):
        """A URL the delivery guard would refuse is refused now, so the merchant learns
        it at once rather than from failed deliveries."""
        if value and not settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
            try:
                resolve_target(value)
            except DeliveryRefused as exc:
                raise serializers.ValidationError(f"Webhooks cannot be delivered there: {exc}")
        return value


# Null and nothing else, given the property's own schema (a nullable string); not
# written as an enum, which the enum postprocessing would lift into an empty component.
NULL_ONLY = {"not": {"type": "string"}}


def _given(*names: str) -> dict:
    """JSON Schema: each of `names` is present and not null."""
    return {"required": list(names), "properties": {n: {"not": {"enum": [None]}} for n in names}}


class OrderCreateInScheme(OpenApiSerializerExtension):
    """The rules between fields of an order request, in the schema: exactly one way of choosing the method; nspk_code only with
    method_type; customer_account null for Buy and required for Sell; the aggregate SBP
    (method_type SBP without nspk_code) only for Buy."""

    target_class = OrderCreateIn

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_basic_serializer(self.target, direction)
        if direction != "request":
            return schema
        schema["properties"]["customer_bank"]["pattern"] = any_case_pattern(
            sorted(services.CUSTOMER_BANKS)
        )
        schema["allOf"] = [
            {"anyOf": [_given("payment_method_id"), _given("method_type")]},
            {"not": _given("payment_method_id", "method_type")},
            {"anyOf": [{"not": _given("nspk_code")}, _given("method_type")]},
            {
                "oneOf": [
                    {
                        "properties": {
                            "order_side": {"enum": ["Buy"]},
                            "customer_account": NULL_ONLY,
                        }
                    },
                    {
                        "properties": {
                            "order_side": {"enum": ["Sell"]},
                            "customer_account": {"type": "string", "minLength": 1},
                        },
                        "required": ["customer_account"],
                        "not": {
                            "properties": {
                                "method_type": {"enum": ["SBP"]},
                                "nspk_code": NULL_ONLY,
                            },
                            "required": ["method_type"],
                        },
                    },
                ]
            },
        ]
        schema["description"] = (
            "Exactly one of payment_method_id and method_type; nspk_code only with "
            "method_type. Buy: customer_account null. Sell: customer_account required "
            "(SBP: a Russian phone number, +7 and 10 digits; BankCard: 16 to 19 digits "
            "passing the Luhn check), and not the aggregate SBP method."
        )
        return schema


class OrderOut(serializers.Serializer):
    id = serializers.CharField()
    client_order_id = serializers.CharField()
    currency = serializers.CharField()
    method_id = serializers.CharField()
    method_name = serializers.CharField()
    method_type = serializers.CharField()
    initial_method_id = serializers.CharField()
    order_side = serializers.ChoiceField(choices=Side.choices)
    amount = serializers.CharField()
    fee = serializers.CharField()
    fixed_fee = serializers.FloatField(allow_null=True)
    fee_amount = serializers.CharField()
    paid_amount = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=OrderStatus.choices)
    holder_name = serializers.CharField()
    holder_account = serializers.CharField()
    customer_name = serializers.CharField(allow_null=True)
    customer_account = serializers.CharField(allow_null=True)
    customer_bank = serializers.CharField(allow_null=True)
    payment_link = serializers.CharField(allow_null=True)
    webhook_url = serializers.CharField(allow_null=True)
    form_url = serializers.CharField(required=False)
    created_at = serializers.CharField()
    updated_at = serializers.CharField()
    expires_at = serializers.CharField()
    receipts_count = serializers.IntegerField()
    livemode = serializers.BooleanField()


def order_envelopes(prefix: str, item: type[serializers.Serializer]):
    """The {success, message, order} and {success, message, orders: page} schemas."""
    envelope = inline_serializer(
        f"{prefix}Response",
        {
            "success": serializers.BooleanField(),
            "message": serializers.CharField(),
            "order": item(),
        },
    )
    page = inline_serializer(
        f"{prefix}Page",
        {
            "success": serializers.BooleanField(),
            "message": serializers.CharField(),
            "orders": page_schema(f"{prefix}PageBody", item(many=True)),
        },
    )
    return envelope, page


OrderEnvelope, OrderPage = order_envelopes("Order", OrderOut)


OrderListPage = inline_serializer(
    "OrderListPage",
    {
        "success": serializers.BooleanField(),
        "message": serializers.CharField(),
        "orders": capped_page_schema(
            "OrderListPageBody",
            OrderOut(many=True),
            rows="orders",
            cap_setting="ORDER_LIST_COUNT_CAP",
        ),
    },
)


class OrderListQuery(page_query(10), DateRangeMixin):
    payment_method_id = TrimmedTextField(required=False, max_length=64)
    order_side = serializers.ChoiceField(choices=Side.choices, required=False)
    status = serializers.ChoiceField(choices=OrderStatus.choices, required=False)
    sort_by = serializers.ChoiceField(choices=["created_at", "amount"], default="created_at")
    sort = serializers.ChoiceField(choices=["asc", "desc"], default="desc")
    starting_after = serializers.UUIDField(
        required=False,
        help_text="An order id: the page of orders right after it in this list's order "
        "(the next page). With a cursor, `page` is not used: the answer is page 1 of what "
        "lies beyond the cursor. An id that is not one of the terminal's orders: 404.",
    )
    ending_before = serializers.UUIDField(
        required=False,
        help_text="An order id: the page of orders right before it in this list's order "
        "(the previous page). With `starting_after` too, the orders between the two.",
    )


class OrderCollectionView(TerminalAPIView):
    # An order_with_form terminal's order gets its payment form session in its own
    # creation's transaction: `form_session(options)` gives order_create's
    # `form_session` step. The project's URLs pass forms_ui's (as_view(form_session=...)),
    # as orders cannot name the layer above it.
    form_session = None

    @extend_schema(
        operation_id="order_create",
        request=OrderCreateIn,
        responses={201: OrderOut},
        description="Creates an order and answers 201 with the bare Order object (no "
        "success/message wrapper, unlike the lookups).",
    )
    def post(self, request):
        return idempotent(request, self, lambda: self._create(request))

    def _create(self, request):
        data = OrderCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        terminal = self.terminal
        form_session = None
        if terminal.integration_type == IntegrationType.ORDER_WITH_FORM:
            if self.form_session is None:
                raise RuntimeError("No payment form: the URLs give this view no form_session")
            form_session = self.form_session(
                {
                    "redirect_url": v.get("redirect_url"),
                    "support_url": v.get("support_url"),
                    "return_url": v.get("return_url"),
                    "ip_address": client_ip(request),
                    "unique_amount": bool(v.get("unique_amount")),
                }
            )
        order = services.order_create(
            terminal=terminal,
            client_order_id=v["client_order_id"],
            side=v["order_side"],
            amount=v["amount"],
            payment_method_id=v.get("payment_method_id"),
            method_type=v.get("method_type"),
            nspk_code=v.get("nspk_code"),
            customer_name=v.get("customer_name"),
            customer_account=v.get("customer_account"),
            customer_bank=v.get("customer_bank"),
            user_id=v.get("user_id"),
            webhook_url=v.get("webhook_url"),
            unique_amount=bool(v.get("unique_amount")),
            form_session=form_session,
        )
        return Response(render_order(order), status=201)

    @extend_schema(operation_id="order_list", parameters=[OrderListQuery], responses=OrderListPage)
    def get(self, request):
        q = parse_query(OrderListQuery, request)
        now = timezone.now()
        end = q.get("end_date") or now
        start = q.get("start_date")
        if start is None:
            # api.md: 24 hours before now, whatever end_date says; an end_date before
            # that leaves the window empty (no start_date was sent to refuse).
            start = min(now - timedelta(hours=24), end)
        period_check(start, end)
        filters = dict(
            terminal=self.terminal,
            start=start,
            end=end,
            payment_method_id=q.get("payment_method_id"),
            order_side=q.get("order_side"),
            status=q.get("status"),
        )
        order = dict(sort_by=q["sort_by"], descending=q["sort"] == "desc")
        asked = PageAsked.of(q, count_cap=settings.ORDER_LIST_COUNT_CAP)
        page = order_list_page(**filters, **order, asked=asked)
        page["items"] = render_rows(page["items"])
        return Response(ok(orders=page))


class SearchByClientIdQuery(KeptFieldsSerializer):
    id = ClientOrderIdField()
    size = serializers.IntegerField(min_value=1, max_value=100, default=10)


class OrderSearchByClientIdView(TerminalAPIView):
    @extend_schema(
        operation_id="order_search_by_client_order_id",
        parameters=[SearchByClientIdQuery],
        responses=OrderPage,
    )
    def get(self, request):
        q = parse_query(SearchByClientIdQuery, request)
        rows = orders_by_client_order_id(
            terminal=self.terminal, client_order_id=q["id"], size=q["size"]
        )
        # Always one page: total counts what that page holds.
        page = {
            "total": len(rows),
            "page": 1,
            "size": q["size"],
            "pages": 1 if rows else 0,
            "items": render_rows(rows),
        }
        return Response(ok(orders=page))


class OrderDetailView(TerminalAPIView):
    @extend_schema(operation_id="order_get", responses=OrderEnvelope)
    def get(self, request, order_id):
        order = selectors.order_of_terminal(terminal=self.terminal, order_id=order_id)
        return Response(ok(order=render_order(order)))


class OrderCancelView(TerminalAPIView):
    @extend_schema(operation_id="order_cancel", request=None, responses=OrderEnvelope)
    def post(self, request, order_id):
        order = selectors.order_of_terminal(terminal=self.terminal, order_id=order_id)
        order = services.order_cancel(order_id=order.pk, actor=f"merchant:{self.terminal.pk}")
        return Response(ok(order=render_order(order)))
