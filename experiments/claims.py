"""
Claims and verdicts. Every reproduction declares its CLAIMS beside its PROTOCOL, before it runs: the paper's statement
(`says`) and a test over named quantities (`of`: labels of the values common.report writes, one number per seed),
which says what the claim needs over the seeds:

    test='descending', of=[a, b, ...]    a above b above ...: each one's seeds all above the next one's (seed ranges
                                         apart, so the order holds on every seed whichever way they pair);
                                         'ascending' reads the list the other way
    test='above' or 'below', bound=x     every seed of each quantity above (below) x
    test='within', target=x, tol=t       every seed of each quantity within x +- t (the paper's number, say)

fmt='num' prints the quantities as numbers, not percentages. A test holds when every seed agrees, fails when none
does, and is split otherwise (the seeds disagree); a claim on a quantity its mode does not measure is untested.
CLAIMS is a list, or {mode: list} where the quick protocol measures other quantities than the full one. A claim is
changed only in a commit that does not also change that experiment's results (reproduce.py --check enforces it).
"""

def pct(x):
    return f'{100 * x:.2f}%'


VERDICTS = ('Reproduced', 'Partly', 'Not reproduced', 'Not resolved', 'Not measured')
MARK = {'holds': '✓', 'fails': '✗', 'split': '~', 'untested': '–'}


def seed_range(value):
    """-> (lowest, highest, mean, seeds) of a quantity: its numbers, one per seed, or (results recovered from a
    table of mean +- std (min-max), before the JSON was kept) a dict of those statistics."""
    if isinstance(value, dict):
        return value['min'], value['max'], value['mean'], value['n']
    value = [float(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    return min(value), max(value), sum(value) / len(value), len(value)


def judge(claim, values):
    """-> the claim with its outcome ('holds', 'fails' or 'split') and the numbers it rests on."""
    missing = [q for q in claim['of'] if q not in values]
    if missing:  # e.g. Yelp, which only the full protocol runs
        return {**claim, 'outcome': 'untested', 'evidence': f"not measured in this mode: {', '.join(missing)}"}
    r = {q: seed_range(values[q]) for q in claim['of']}
    test = claim['test']
    if test in ('descending', 'ascending'):
        order = claim['of'] if test == 'descending' else claim['of'][::-1]
        tests = [(r[a][0] > r[b][1], r[a][1] <= r[b][0]) for a, b in zip(order, order[1:])]
    elif test == 'above':
        tests = [(lo > claim['bound'], hi <= claim['bound']) for lo, hi, _, _ in r.values()]
    elif test == 'below':
        tests = [(hi < claim['bound'], lo >= claim['bound']) for lo, hi, _, _ in r.values()]
    elif test == 'within':
        a, b = claim['target'] - claim['tol'], claim['target'] + claim['tol']
        tests = [(a <= lo and hi <= b, hi < a or lo > b) for lo, hi, _, _ in r.values()]
    else:
        raise ValueError(f"claim {claim['says']!r}: unknown test {test!r}")
    outcome = 'fails' if any(no for _, no in tests) else 'holds' if all(yes for yes, _ in tests) else 'split'
    fmt = pct if claim.get('fmt', 'pct') == 'pct' else (lambda x: f'{x:.4g}')
    shown = '; '.join(f'{q} {fmt(mean)}' + (f' ({fmt(lo)}–{fmt(hi)})' if n > 1 and lo != hi else '')
                      for q, (lo, hi, mean, n) in r.items())
    bound = fmt(claim.get('bound', 0))
    needs = {'descending': 'each above the next on every seed', 'ascending': 'each below the next on every seed',
             'above': f'every seed > {bound}', 'below': f'every seed < {bound}',
             'within': f"every seed within {fmt(claim.get('target', 0))} ± {fmt(claim.get('tol', 0))}"}[test]
    return {**claim, 'outcome': outcome, 'evidence': f'{shown} (needs {needs})'}


def verdict(judged):
    """The file's verdict from its judged claims (those its mode measured): Reproduced when every claim holds, Not
    reproduced when none holds and one fails, Not resolved when every claim is split, else Partly."""
    outcomes = [c['outcome'] for c in judged if c['outcome'] != 'untested']
    if not outcomes:
        return 'Not measured'
    if all(o == 'holds' for o in outcomes):
        return 'Reproduced'
    if 'holds' not in outcomes:
        return 'Not reproduced' if 'fails' in outcomes else 'Not resolved'
    return 'Partly'


def claims_text(results):
    """The verdict and each claim's outcome, as markdown (a results file's section)."""
    lines = [f"- {MARK[c['outcome']]} {c['outcome']}: {c['says']}: {c['evidence']}" for c in results['claims']]
    when = 'after this run, from the paper' if results.get('recovered') else 'before the run'
    return '\n'.join([f"**Verdict: {results['verdict']}** (claims declared {when}; ✓ every seed agrees, ✗ none "
                      'does, ~ the seeds disagree)', ''] + lines)
