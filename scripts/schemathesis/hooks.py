"""Schemathesis hooks of the run against the REST API (scripts/schemathesis/run.sh; README "The OpenAPI document and Schemathesis").

Two kinds, and nothing else:
- RULES: a few rules hold between values, or between a value and stored data, and OpenAPI cannot state them (each is in its
  operation's description, with the 400 it answers as an example). Positive cases are made to follow them, as a client
  following the document would; negative cases are left alone. A form cannot carry an empty list (no key is sent), so a case
  with one is not sent: Schemathesis would judge a request it did not send.
- EXCEPTIONS: the disagreements accepted with their reason (at most three). A failure is dropped only when it matches one
  exactly: any other answer of the same operation still fails.
"""
import itertools
import os
import re

import schemathesis

# --- rules between values (the operations' descriptions say the same) --------------------------------------------------------

#: Statistic resources whose resource_id is an id (contact_type and page_type take their text value).
NUMERIC_RESOURCES = {"operator", "group", "skill", "rule"}
MAX_ID = 2**53 - 1
CONVERSATION_PATHS = {"/conversation", "/conversation.json-unicode"}
_unique = itertools.count(1)


def _date(text):
    """(year, month, day, h, m, s) of a REST date; a date alone has no time."""
    t = [int(x) for x in re.findall(r"\d+", text)]
    return tuple(t) if len(t) == 6 else (*t, None, None, None)


def _start(d):
    return (*d[:3], *(d[3:] if d[3] is not None else (0, 0, 0)))


def _end(d):
    return (*d[:3], *(d[3:] if d[3] is not None else (23, 59, 59)))


def _leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _add_months(d, n):
    """Calendar months added, the day clamped to the month's last (the server's addMonths)."""
    y, m = divmod(d[0] * 12 + d[1] - 1 + n, 12)
    last = [31, 29 if _leap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m]
    return (y, m + 1, min(d[2], last), *d[3:])


def _as_list(value):
    return value if isinstance(value, list) else str(value).split(",")


def _is_id(value):
    text = str(value)
    return text.isascii() and text.isdigit() and len(text) <= 16 and int(text) <= MAX_ID


def _period(query, path):
    """from is not after to; the conversation listing's period is at most 3 months (spec)."""
    if "filters[from]" not in query or "filters[to]" not in query:
        return
    start, end = _date(str(query["filters[from]"])), _date(str(query["filters[to]"]))
    if _start(start) > _end(end):
        query["filters[from]"], query["filters[to]"] = query["filters[to]"], query["filters[from]"]
        start, end = end, start
        if _start(start) > _end(end):
            query["filters[to]"] = query["filters[from]"]
            end = start
    if path in CONVERSATION_PATHS and _start(end) > _start(_add_months(_start(start), 3)):
        query["filters[to]"] = query["filters[from]"]


def _statistic(query, operation):
    """resource_id needs resource and is an id for numeric resources; granularity needs one indicator and one resource; indicators
    named with a channel are served for it."""
    resource = query.get("filters[resource]")
    if "filters[resource_id]" in query and resource is None:
        del query["filters[resource_id]"]
    if resource in NUMERIC_RESOURCES and "filters[resource_id]" in query and not _is_id(query["filters[resource_id]"]):
        query["filters[resource_id]"] = 1
    channel = query.get("filters[channel]")
    # The document gives the channels each indicator is served for (x-indicator-channels of GET /statistic).
    channels_of = operation.definition.raw.get("x-indicator-channels", {})
    served = (lambda name: channel is None or channel in channels_of.get(name, []))
    if "filters[indicators]" in query:
        names = [n for n in _as_list(query["filters[indicators]"]) if served(n)]
        if names:
            query["filters[indicators]"] = names
        else:
            del query["filters[indicators]"]
    if "filters[granularity]" in query:
        names = _as_list(query.get("filters[indicators]", []))
        if not names:
            # social_d serves no indicator: a granularity there has nothing to count.
            if channel == "social_d":
                del query["filters[channel]"]
            names = ["contact_number"]
        query["filters[indicators]"] = names[:1]
        if resource is not None and "filters[resource_id]" not in query:
            del query["filters[resource]"]


def _unique_email(body):
    """An operator e-mail is not used by another operator: each request's e-mail is made unique (its domain kept)."""
    if isinstance(body, dict) and isinstance(body.get("email"), str):
        m = re.fullmatch(r"(?:st\d+-)*([A-Za-z0-9._%+-]+@[^@\s]+)", body["email"])
        if m:
            return {**body, "email": f"st{next(_unique)}-{m.group(1)}"}
    return body


_owned = {}


def _owned_ids(kind):
    """Ids of the key's client's websites, skills or groups, read once from the API (CES_REST_BASE_URL, CES_API_KEY, CES_CA_FILE)."""
    if kind not in _owned:
        import requests  # Schemathesis's own HTTP client
        base, key = os.environ.get("CES_REST_BASE_URL"), os.environ.get("CES_API_KEY")
        ids = []
        if base and key:
            res = requests.get(f"{base}/{kind}?limit=100", headers={"X-API-Key": key}, verify=os.environ.get("CES_CA_FILE") or True, timeout=10)
            ids = [item["id"] for item in res.json().get("data", [])]
        _owned[kind] = ids
    return _owned[kind]


def _own_ids(body, form):
    """website_list, skill_list and group_id name the key's client's own websites, skills and group (stored data)."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    spell = str if form else (lambda x: x)
    for field, kind in (("website_list", "website"), ("skill_list", "skill")):
        if isinstance(out.get(field), list) and out[field]:
            out[field] = [spell(i) for i in _owned_ids(kind)[: len(out[field])]]
    if out.get("group_id") not in (None, "", "null"):
        groups = _owned_ids("group")
        if groups:
            out["group_id"] = spell(groups[0])
        else:
            del out["group_id"]
    return out


@schemathesis.hook
def map_case(ctx, case):
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return case
    path = case.operation.path
    if isinstance(case.query, dict):
        _period(case.query, path)
        if path == "/statistic":
            _statistic(case.query, case.operation)
    return case


@schemathesis.hook
def before_call(ctx, case, kwargs):
    # Just before each request (a case sent again gets a new e-mail too); Schemathesis judges the case as edited here.
    if case.operation.path in ("/operator", "/operator/{id}") and case.method.upper() in ("POST", "PUT"):
        body = _unique_email(case.body)
        if case.meta is not None and case.meta.generation.mode.is_positive:
            body = _own_ids(body, (case.media_type or "").startswith("application/x-www-form-urlencoded"))
        if body is not case.body:
            case.body = body


@schemathesis.hook
def filter_case(ctx, case):
    form = (case.media_type or "").startswith("application/x-www-form-urlencoded")
    return not (form and isinstance(case.body, dict) and any(v == [] for v in case.body.values()))


# --- accepted disagreements, each with its reason (at most three) ------------------------------------------------------------

EXCEPTIONS = [
    {
        "name": "size limits",
        "reason": "A request over the URI limit (8 KiB: 414) or Node's header limit (16 KiB: 431) is refused for its size before any "
                  "value is read, as the document says of every operation; Schemathesis counts neither status as a rejection, and "
                  "a long enough valid value can reach either.",
        "match": lambda op, check, status, body: status in (414, 431) and check in ("RejectedPositiveData", "AcceptedNegativeData"),
    },
    {
        "name": "channel not enabled",
        "reason": "Making a channel available needs it enabled on the operator (stored data, documented as a 400 example): Schemathesis "
                  "cannot know which operator has which channel enabled.",
        "match": lambda op, check, status, body: op == "PUT /operator/{id}/live" and check == "RejectedPositiveData" and status == 400
        and re.search(r'"The (chat|call|video) channel is not enabled for operator \d+ \(\w+_enabled is false\)\."', body) is not None,
    },
]


@schemathesis.hook
def filter_failure(ctx, failure, case, response):
    op = f"{case.method.upper()} {case.operation.path}"
    check = type(failure).__name__
    return not any(e["match"](op, check, response.status_code, response.text or "") for e in EXCEPTIONS)
