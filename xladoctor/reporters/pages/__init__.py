"""HTML report files (`--format html`): one self-contained page per report, nothing loaded from the network.

page.py is the shell every report shares (its stylesheet page.css and script page.js inlined, a CSP that allows
nothing else), parts.py the components (findings, command blocks with copy buttons, summary chips, tables),
fleet.py the workers x components dashboard, timeline.py the profile's step chart; then one module per report
kind (check, compare, explain, profile), each a function of its report model returning the page. A new kind is
one more such module. Every report string reaches the page through `esc` (xladoctor.sanitize, then escaping).
"""
