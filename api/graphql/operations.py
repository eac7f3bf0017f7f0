"""What the view reads of a document itself, before or after the schema runs it: whether it holds several
operations (then `operationName` must choose one), the request error when it does not, and whether a result is a
request error (the operation never ran)."""

from __future__ import annotations

import functools
import re

from graphql import DocumentNode, GraphQLError, OperationDefinitionNode, parse
from strawberry.types.execution import ExecutionResult, PreExecutionError

_OPERATION_KEYWORD = re.compile(r"\b(?:query|mutation|subscription)\b")
"""Several operations without a name are refused by validation (LoneAnonymousOperationRule); several named ones
each start with one of these keywords: a document with fewer than two needs no parse to know it holds one."""


@functools.lru_cache(maxsize=256)
def parse_document(query: str, max_tokens: int | None = None) -> DocumentNode | None:
    """The document of a query (cached), or None when it does not parse: the schema reports that itself."""
    try:
        return parse(query, max_tokens=max_tokens)
    except (GraphQLError, RecursionError):
        return None


def several_operations(query: str, max_tokens: int | None = None) -> bool:
    """Whether a document defines more than one operation (then an `operationName` must choose one)."""
    keywords = _OPERATION_KEYWORD.finditer(query)
    if next(keywords, None) is None or next(keywords, None) is None:
        return False
    document = parse_document(query, max_tokens)
    return document is not None and sum(isinstance(d, OperationDefinitionNode) for d in document.definitions) > 1


def operation_name_required() -> GraphQLError:
    """The request error for a document of several operations sent without `operationName`."""
    return GraphQLError("The document defines several operations: give `operationName` to say which one to run.",
                        extensions={"code": "operation_name_required"})


def _is_request_error(result: ExecutionResult) -> bool:
    """True when the operation never ran: parse/validation failure, or variables that did not coerce."""
    if isinstance(result, PreExecutionError):
        return True
    # graphql-core reports variable-coercion failures as data=None with errors that carry no path;
    # an execution that nulled the whole response always has a path on its errors.
    return (
        result.data is None and bool(result.errors) and all(err.path is None for err in result.errors or ())
    )
