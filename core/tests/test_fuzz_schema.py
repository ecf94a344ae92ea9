"""Property-based fuzzing of the whole API from its own OpenAPI schema.

Every operation gets generated requests (valid and invalid). The properties: no 5xx
except the documented `No available traders ...`, every response matches the schema
(status code, content type, body), every error has the contract's shape."""

import os

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, positive_data_acceptance
from schemathesis.generation.meta import CoveragePhaseData, CoverageScenario

from paymentsvc.wsgi import application

MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "30"))

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


DATE_ORDER = "start_date not after end_date"
INEXPRESSIBLE_RULES = {
    ("GET", "/api/v1/order/"): DATE_ORDER,
    ("GET", "/api/v1/disputes/search"): DATE_ORDER,
    ("GET", "/api/v1/finance/transactions"): DATE_ORDER,
    ("GET", "/api/v1/events"): "created_after not after created_before",
    # One dispute per order; evidence judged from its bytes.
    ("POST", "/api/v1/disputes/create"): "dispute_exists, file content",
    # Whether the terminal offers the button.
    ("POST", "/api/v1/form/create"): "button_not_offered",
    # The account's format depends on the method a payment_method_id names (and the
    # Luhn check); a Sell needs the balance (402).
    ("POST", "/api/v1/order/"): "customer_account format, balance",
    ("POST", "/api/v1/order/availability"): "customer_account format, balance",
    # paid_amount only with complete, and within the order's own bounds.
    ("POST", "/api/v1/sandbox/order/{order_id}/simulate"): "paid_amount against the order",
    # A withdrawal needs the balance (402).
    ("POST", "/api/v1/finance/withdrawals"): "balance",
}


def assert_error_shape(response) -> None:
    if response.status_code < 400:
        return
    body = response.json()
    assert body["success"] is False, body
    assert isinstance(body["message"], str) and body["message"], body
    assert isinstance(body["code"], str) and body["code"], body


def assert_no_undocumented_server_error(response) -> None:
    if response.status_code >= 500:
        assert response.status_code == 500, response.text
        assert response.json()["message"].startswith("No available traders"), response.text


DEVICE_TOKEN = "dev_demo-device-1-token-0000000000000000"  # traders.md §22


def key_for(case) -> str:
    if case.path.startswith("/api/v1/device/"):
        return DEVICE_TOKEN
    return "demo-trader-1-key" if case.path.startswith("/api/v1/trader/") else "demo-shop-key"


def key_header(case) -> str:
    return "X-Device-Token" if case.path.startswith("/api/v1/device/") else "X-API-Key"


def drops_key(case) -> bool:
    """Whether the case is the coverage phase's request without the key header."""
    data = getattr(getattr(case.meta, "phase", None), "data", None)
    return (
        isinstance(data, CoveragePhaseData)
        and data.scenario == CoverageScenario.MISSING_PARAMETER
        and (data.parameter or "").lower() == key_header(case).lower()
    )


@schema.auth(cache_by_key=lambda case, ctx: key_for(case))
class DemoKeys:
    """The demo keys as the schema's own authentication, so the auth checks can swap
    them for missing or invalid ones. Kept per key (one kept key would be the shop's
    for the traders' and the device's operations too; fetched for each case instead,
    the stateful run's generation stopped repeating itself)."""

    def get(self, case, ctx):
        return key_for(case)

    def set(self, case, data, ctx):
        if not drops_key(case):
            case.headers = {**(case.headers or {}), key_header(case): data}


@pytest.fixture
def fuzz_env(demo, settings):
    # The WSGI handler closes the connection after each request, as in production;
    # the test's transaction must survive it (Django's test client does the same).
    settings.API_RATE_LIMIT = "1000000/min"
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield demo
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_api_holds_its_contract_for_generated_requests(case, fuzz_env):
    use_real_ids(case, fuzz_env)
    judge(case, case.call())


def judge(case, response, **kwargs) -> None:
    assert_no_undocumented_server_error(response)
    assert_error_shape(response)
    # Server errors are judged above (the one documented 500 is allowed); every other
    # default check runs, except "schema-valid means accepted" for the operations
    # whose rules OpenAPI cannot express (each written in the operation's description).
    excluded = [not_a_server_error]
    if (case.method, case.path) in INEXPRESSIBLE_RULES:
        excluded.append(positive_data_acceptance)
    case.validate_response(response, excluded_checks=excluded, **kwargs)


def use_real_ids(case, demo) -> None:
    """A generated payment_method_id names nothing (404); swap it, keeping the case
    schema-valid (any string is), for a real demo method picked by the generated
    value, so valid requests go on to create orders."""
    body = case.body
    labels = ("POST /api/v1/order/", "POST /api/v1/order/availability")
    if case.operation.label in labels and isinstance(body, dict):
        generated = body.get("payment_method_id")
        if isinstance(generated, str) and generated:
            methods = sorted(demo.methods.values(), key=lambda m: m.name)
            body["payment_method_id"] = str(methods[len(generated) % len(methods)].pk)


class Workflow(schema.exclude(path_regex="^/api/v1/(trader|device)/").as_state_machine()):
    """Stateful run over the schema's links: create -> get -> cancel an order, form
    create -> search, dispute create -> search. The merchants' operations only, as the
    run was written for: the traders' and the device's are fuzzed one by one above
    (authenticated, their links' targets answered with data, the machine's generation
    did not repeat itself between a run and its replay)."""

    demo = None

    def before_call(self, case):
        use_real_ids(case, self.demo)
        positive = case.meta is not None and case.meta.generation.mode.is_positive
        if positive and case.operation.label == "POST /api/v1/order/":
            # The links start from a created order: a Buy the demo data can match
            # (generated amounts mostly fall outside the method's range).
            case.body.update(
                order_side="Buy",
                payment_method_id=self.demo.method_id("Sberbank SBP"),
                method_type=None,
                nspk_code=None,
                customer_account=None,
                amount="1000.00",
                unique_amount=True,
                user_id=None,
            )

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        judge(case, response)


def test_api_holds_its_contract_along_its_links(fuzz_env):
    Workflow.demo = fuzz_env
    Workflow.run(
        settings=settings(
            max_examples=MAX_EXAMPLES * 2,
            stateful_step_count=10,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
    )
