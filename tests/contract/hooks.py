"""Schemathesis checks of the service's own (tests/contract/run loads this file as SCHEMATHESIS_HOOKS).

A page's cursor is sealed by the server (docs/api.md#listing): any text it did not give is a
request the document allows (it can only state the cursor's alphabet and length) and the server
rightly refuses with `400`. So the operations that take a `cursor` list 400 among the answers
`positive_data_acceptance` accepts (schemathesis.toml), and the check below narrows that 400 to
exactly that case: the request carried a `cursor` and the problem document is about it. Any other
400 to a schema-valid request (a `limit`, an id, a filter the document allows) fails the run.
"""

import json
from urllib.parse import parse_qs, urlsplit

import schemathesis
from schemathesis.core.transport import expand_status_codes
from schemathesis.specs.openapi.checks import is_unexpected_http_status_case


def _problem_code(response):
    """The `code` of a problem document, or None when the body is not one."""
    content_type = ",".join(response.headers.get("content-type", []))
    if "application/problem+json" not in content_type:
        return None
    try:
        problem = json.loads(response.content)
    except ValueError:
        return None
    return problem.get("code") if isinstance(problem, dict) else None


def _about_the_cursor(code, query):
    """Whether a refusal with `code` of a request with this query is a refusal of its cursor.

    Every code the service gives a cursor it did not make, or made for another listing, tenant
    or board, names the cursor (`invalid_cursor` and any later `*cursor*` code). A leaderboard
    read with both `around` and `cursor` is refused `invalid_query`: they ask for different pages,
    which a document cannot say of two optional parameters.
    """
    if code is None:
        return False
    if "cursor" in code:
        return True
    return code == "invalid_query" and "around" in query


@schemathesis.check
def a_400_only_for_a_cursor_the_server_did_not_make(ctx, response, case):
    """A schema-valid request answered 400 is a failure unless its cursor was refused."""
    if response.status_code != 400 or case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    # The same requests positive_data_acceptance itself leaves out: probes of the request's shape.
    if is_unexpected_http_status_case(case):
        return None
    accepted = ctx.config.positive_data_acceptance
    if not accepted.enabled or 400 not in expand_status_codes(accepted.expected_statuses or []):
        # positive_data_acceptance fails this 400 itself (or the run does not check it).
        return None
    # What was sent, not what was generated: the query string of the request itself.
    query = parse_qs(urlsplit(response.request.url).query, keep_blank_values=True)
    code = _problem_code(response)
    if "cursor" in query and _about_the_cursor(code, query):
        return None
    sent = "with" if "cursor" in query else "without"
    raise AssertionError(
        f"A schema-valid request {sent} a `cursor` was answered 400 `{code}`: only a cursor the "
        "server did not make may be refused (tests/contract/hooks.py)"
    )
