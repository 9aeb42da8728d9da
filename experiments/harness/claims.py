"""
Claims and verdicts. Every reproduction declares its CLAIMS beside its PROTOCOL, before it runs: the
paper's statement (`says`) and a test over named quantities (`of`: labels of the values
common.report writes, one number per seed), which says what the claim needs over the seeds:

    test='descending', of=[a, b, ...]   a above b above ...: each one's seeds all above the next
                                        one's (seed ranges apart, so the order holds on every seed
                                        whichever way they pair); 'ascending' reads the list the
                                        other way
    test='above' or 'below', bound=x    every seed of each quantity above (below) x
    test='within', target=x, tol=t      every seed of each quantity within x +- t (the paper's
                                        number, say)

fmt='num' prints the quantities as numbers, not percentages. A test holds when every seed agrees,
fails when none does, and is split otherwise (the seeds disagree); a claim on a quantity its mode
does not measure is untested. CLAIMS is a list, or {mode: list} where the quick protocol measures
other quantities than the full one. A claim is changed only in a commit that does not also change
that experiment's results (reproduce.py --check enforces it).
"""


def pct(x):
    return f'{100 * x:.2f}%'


VERDICTS = ('Reproduced', 'Partly', 'Not reproduced', 'Not resolved', 'Not measured')
MARK = {'holds': '✓', 'fails': '✗', 'split': '~', 'untested': '–'}


def seed_range(value):
    """-> (lowest, highest, mean, seeds) of a quantity: its numbers, one per seed, or (results
    recovered from a table of mean +- std (min-max), before the JSON was kept) a dict of those
    statistics."""
    if isinstance(value, dict):
        return value['min'], value['max'], value['mean'], value['n']
    value = [float(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    return min(value), max(value), sum(value) / len(value), len(value)


def judge(claim, values, trend=None):
    """-> the claim with its outcome ('holds', 'fails' or 'split'), the numbers it rests on, its
    margin (how far the seeds' means are on the claim's side: positive where the means agree) and,
    given a TREND's results (trend.py), the claim judged at each of its sizes and whether the margin
    moves toward the paper's claim."""
    missing = [q for q in claim['of'] if q not in values]
    if missing:  # e.g. Yelp, which only the full protocol runs
        return {
            **claim,
            'outcome': 'untested',
            'evidence': f'not measured in this mode: {", ".join(missing)}',
        }
    r = {q: seed_range(values[q]) for q in claim['of']}
    test = claim['test']
    # margin: the least gap between neighbours' means, in the claim's order
    if test in ('descending', 'ascending'):
        order = claim['of'] if test == 'descending' else claim['of'][::-1]
        tests = [(r[a][0] > r[b][1], r[a][1] <= r[b][0]) for a, b in zip(order, order[1:])]
        margins = [r[a][2] - r[b][2] for a, b in zip(order, order[1:])]
    elif test == 'above':
        tests = [(lo > claim['bound'], hi <= claim['bound']) for lo, hi, _, _ in r.values()]
        margins = [mean - claim['bound'] for _, _, mean, _ in r.values()]
    elif test == 'below':
        tests = [(hi < claim['bound'], lo >= claim['bound']) for lo, hi, _, _ in r.values()]
        margins = [claim['bound'] - mean for _, _, mean, _ in r.values()]
    elif test == 'within':
        a, b = claim['target'] - claim['tol'], claim['target'] + claim['tol']
        tests = [(a <= lo and hi <= b, hi < a or lo > b) for lo, hi, _, _ in r.values()]
        margins = [claim['tol'] - abs(mean - claim['target']) for _, _, mean, _ in r.values()]
    else:
        raise ValueError(f'claim {claim["says"]!r}: unknown test {test!r}')
    outcome = (
        'fails'
        if any(no for _, no in tests)
        else 'holds'
        if all(yes for yes, _ in tests)
        else 'split'
    )
    margin = min(margins)
    fmt = pct if claim.get('fmt', 'pct') == 'pct' else (lambda x: f'{x:.4g}')
    shown = '; '.join(
        f'{q} {fmt(mean)}' + (f' ({fmt(lo)}–{fmt(hi)})' if n > 1 and lo != hi else '')
        for q, (lo, hi, mean, n) in r.items()
    )
    bound = fmt(claim.get('bound', 0))
    needs = {
        'descending': 'each above the next on every seed',
        'ascending': 'each below the next on every seed',
        'above': f'every seed > {bound}',
        'below': f'every seed < {bound}',
        'within': f'every seed within {fmt(claim.get("target", 0))} ± {fmt(claim.get("tol", 0))}',
    }[test]
    judged = {**claim, 'outcome': outcome, 'margin': margin, 'evidence': f'{shown} (needs {needs})'}
    return {**judged, **trended(judged, trend)} if trend else judged


def declared(claim):
    """A judged claim (a results JSON's) as it was declared: its statement and test, without what
    judging added."""
    return {k: v for k, v in claim.items() if k not in ('outcome', 'margin', 'evidence', 'trend')}


def trended(claim, trend):
    """The claim judged at each size of a trend (trend.py's results: its axis, sizes and values at
    each), and the evidence that cites it: each size's outcome and margin, and whether the margin
    grows along the axis (toward the paper's claim), shrinks (away from it), or neither."""
    at = [judge(declared(claim), trend['values'][size]) for size in trend['sizes']]
    margins = [c.get('margin') for c in at]  # None: a size that does not measure the claim
    steps = [b - a for a, b in zip(margins, margins[1:]) if a is not None and b is not None]
    way = (
        'not measured at every size'
        if None in margins
        else 'toward the paper'
        if all(d > 0 for d in steps)
        else 'away from the paper'
        if all(d < 0 for d in steps)
        else 'no steady direction'
    )
    fmt = pct if claim.get('fmt', 'pct') == 'pct' else (lambda x: f'{x:.4g}')
    sizes = ', '.join(
        f'{MARK[c["outcome"]]} {size}' + (f' (margin {fmt(c["margin"])})' if 'margin' in c else '')
        for size, c in zip(trend['sizes'], at)
    )
    return dict(
        trend=[
            dict(size=size, outcome=c['outcome'], margin=c.get('margin'))
            for size, c in zip(trend['sizes'], at)
        ],
        evidence=f'{claim["evidence"]}; trend over {trend["axis"]}: {sizes}: {way}',
    )


def verdict(judged):
    """The file's verdict from its judged claims (those its mode measured): Reproduced when every
    claim holds, Not reproduced when none holds and one fails, Not resolved when every claim is
    split, else Partly."""
    outcomes = [c['outcome'] for c in judged if c['outcome'] != 'untested']
    if not outcomes:
        return 'Not measured'
    if all(o == 'holds' for o in outcomes):
        return 'Reproduced'
    if 'holds' not in outcomes:
        return 'Not reproduced' if 'fails' in outcomes else 'Not resolved'
    return 'Partly'


def claims_text(results, older=False):
    """The verdict and each claim's outcome, as markdown; `older`: results made by other source than
    the experiment's file now, judged on the claims declared for them."""
    lines = [
        f'- {MARK[c["outcome"]]} {c["outcome"]}: {c["says"]}: {c["evidence"]}'
        for c in results['claims']
    ]
    when = 'after this run, from the paper' if results.get('recovered') else 'before the run'
    when += ', by earlier code than the file now' if older else ''
    trend = results.get('trend')
    trend = (
        []
        if not trend
        else [
            '',
            f'Scaling trend over {trend["axis"]} ({", ".join(trend["sizes"])}: '
            f"experiments/tools/trend.py, one seed a size, {trend['date']}): each claim's "
            f'margin at each size above, its quantities in [the plot]'
            f'({results["name"]}-quick-trend.png).',
        ]
    )
    return '\n'.join(
        [
            f'**Verdict: {results["verdict"]}** (claims declared {when}; ✓ every seed agrees, ✗ '
            'none does, ~ the seeds disagree, – not measured)',
            '',
        ]
        + lines
        + trend
    )


# the claims section of a results .md, between these lines: what reproduce.py --check compares
SECTION = (
    '<!-- claims: written by experiments/tools/reproduce.py from the JSON -->',
    '<!-- end of claims -->',
)


def claims_section(results, older=False):
    """A results .md's claims section: claims_text between the SECTION lines."""
    return f'{SECTION[0]}\n{claims_text(results, older)}\n{SECTION[1]}'


def section_of(text):
    """The claims section of a results .md's text; None if it has none."""
    if SECTION[0] not in text or SECTION[1] not in text:
        return None
    return text[text.index(SECTION[0]) : text.index(SECTION[1]) + len(SECTION[1])]
