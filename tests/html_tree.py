"""A small element tree of an HTML page, built with the standard library's HTMLParser, for tests that read the
reports without a browser (tests/browser/ loads them in a real one)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"meta", "link", "br", "hr", "img", "input", "source", "wbr", "area", "base", "col", "embed", "track"}
# what the reporters write; anything else in a page was injected
ALLOWED_TAGS = {
    *("html", "head", "meta", "title", "link", "style", "body", "header", "main", "footer", "script", "section"),
    *("h1", "h2", "h3", "p", "b", "code", "pre", "span", "a", "ul", "li", "details", "summary", "article", "div"),
    *("table", "thead", "tbody", "tr", "th", "td", "button", "label", "input", "figure", "figcaption"),
    *("svg", "rect", "text", "title"),
}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    def iter(self) -> Iterator[Element]:
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str | None = None, css: str | None = None) -> list[Element]:
        return [
            e
            for e in self.iter()
            if (tag is None or e.tag == tag) and (css is None or css in e.attrs.get("class", "").split())
        ]

    def by_id(self, wanted: str) -> Element:
        [found] = [e for e in self.iter() if e.attrs.get("id") == wanted]
        return found

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if self.stack[-1].tag != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1].tag}>")
            while len(self.stack) > 1 and self.stack[-1].tag != tag:
                self.stack.pop()
        if len(self.stack) > 1:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Element:
    """The page's tree; every element must be closed where it was opened (the reporters write well-nested HTML)."""
    builder = _Builder()
    builder.feed(page)
    builder.close()
    assert not builder.errors, builder.errors[:5]
    assert len(builder.stack) == 1, f"unclosed: {[e.tag for e in builder.stack[1:]]}"
    return builder.root


def injected(root: Element) -> list[str]:
    """What no reporter writes: a tag outside ALLOWED_TAGS, a second script, an event-handler attribute, a link
    that runs script."""
    found = [f"<{e.tag}>" for e in root.iter() if e.tag != "#document" and e.tag not in ALLOWED_TAGS]
    if len(root.find_all("script")) != 1:
        found.append(f"{len(root.find_all('script'))} scripts")
    for element in root.iter():
        for name, value in element.attrs.items():
            if name.startswith("on") or value.strip().lower().startswith(("javascript:", "data:text")):
                found.append(f"<{element.tag} {name}={value!r}>")
    return found
