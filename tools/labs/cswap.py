"""Finding and replacing the body of a C function or macro, by name.

A lab names the functions it hands to the student by file and name; this
module finds each one's current body in the source and swaps it for the
lab's starter body.  No markers in the kernel's code: a function is found
as a definition that starts at the beginning of a line and whose name is
followed by its parameter list and an opening brace; a macro as a
`#define NAME` line and its continuation lines.

    body_span(text, name) -> (start, end, kind)   # or raises NotFound
    replace_body(text, name, starter) -> new text

Comments and string literals are blanked out before searching, so a name
in a comment or a brace in a string does not count.
"""
import re


class NotFound(Exception):
    pass


def blank_comments_and_strings(text):
    """The text with every comment and string or character literal replaced
    by spaces (newlines kept), so offsets stay the same."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] not in (c, "\n"):
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _matching(clean, open_at, opener, closer):
    depth = 0
    for k in range(open_at, len(clean)):
        if clean[k] == opener:
            depth += 1
        elif clean[k] == closer:
            depth -= 1
            if depth == 0:
                return k
    raise NotFound(f"unbalanced {opener}{closer}")


def _function_spans(clean, name):
    """(start, end) of the inside of each function definition named name."""
    spans = []
    head = re.compile(r"(?m)^[A-Za-z_][^;{}#]*?\b" + re.escape(name) + r"\s*\(")
    for m in head.finditer(clean):
        close = _matching(clean, m.end() - 1, "(", ")")
        rest = re.match(r"[\s\w()]*?\{", clean[close + 1:])
        if not rest or ";" in clean[close + 1:close + 1 + rest.end()]:
            continue	# a declaration or a call, not a definition
        brace = close + rest.end()
        spans.append((brace + 1, _matching(clean, brace, "{", "}")))
    return spans


def _macro_spans(clean, name):
    """(start, end) of each `#define name` replacement text (params kept)."""
    spans = []
    for m in re.finditer(r"(?m)^[ \t]*#[ \t]*define[ \t]+" + re.escape(name) + r"\b", clean):
        start = m.end()
        if start < len(clean) and clean[start] == "(":
            start = _matching(clean, start, "(", ")") + 1
        end = start
        while True:
            nl = clean.find("\n", end)
            if nl < 0:
                end = len(clean)
                break
            if clean[nl - 1] == "\\":
                end = nl + 1
                continue
            end = nl
            break
        spans.append((start, end))
    return spans


def body_span(text, name):
    clean = blank_comments_and_strings(text)
    spans = [(s, e, "function") for s, e in _function_spans(clean, name)]
    spans += [(s, e, "macro") for s, e in _macro_spans(clean, name)]
    if not spans:
        raise NotFound(f"no function or macro named {name}")
    if len(spans) > 1:
        raise NotFound(f"{len(spans)} definitions of {name}: the lab cannot tell which")
    return spans[0]


def replace_body(text, name, starter):
    """text with name's body replaced by starter.  A function's starter is
    what goes between its braces; a macro's is its replacement text (with
    its own line continuations)."""
    start, end, kind = body_span(text, name)
    if kind == "function":
        new = "\n" + starter.strip("\n") + "\n"
    else:
        new = " " + starter.strip()
    return text[:start] + new + text[end:]
