"""
Claims and verdicts, in short: judged() takes an experiment's results and its CLAIMS; judge() gives
each claim its outcome over the seeds (holds: every seed agrees; fails: none; split; unresolved:
the problem or the seeds cannot tell; untested), standing() says whether the results are in the
paper's regime on SEEDS seeds, and verdict() turns the outcomes into the file's verdict (Reproduced,
Partly, Not reproduced, Not resolved, Not measured). The details:

Every reproduction declares its CLAIMS beside its PROTOCOL, before it runs: the
paper's statement (`says`) and a test over named quantities (`of`: labels of the values
common.report writes, one number per seed), which says what the claim needs over the seeds:

    test='descending', of=[a, b, ...]   a above b above ...: each one's seeds all above the next
                                        one's (seed ranges apart, so the order holds on every seed
                                        whichever way they pair); 'ascending' reads the list the
                                        other way
    test='above' or 'below', bound=x    every seed of each quantity above (below) x
    test='within', target=x, tol=t      every seed of each quantity within x +- t (the paper's
                                        number, say)
    test='close', of=[a, b, ...], tol=t on every seed, the largest less the smallest at most t
                                        relative to their mean (similar(): t is the paper's own)
    test='no_worse', of=[a, b], tol=t   on every seed, a short of b by at most t relative to their
                                        mean, higher better (lower=True: a loss); matches(): "a
                                        matches b" where being better is not against the claim

fmt='num' prints the quantities as numbers, not percentages. A test holds when every seed agrees,
fails when none does, and is split otherwise (the seeds disagree); a claim on a quantity its mode
does not measure is untested. A claim the problem or the seeds cannot resolve is unresolved, never
failed: an order whose quantities tie on every seed at the metric's ceiling or floor (`bounds`, 0
and 1 for a percentage: 100% against 100% separates nothing), a closeness ('within', 'close')
whose seeds spread wider than its tolerance, a 'no_worse' that does not hold, on a seed short by
less than its seeds spread (no tolerance below what the seeds resolve), and a claim on GPU speed
measured on a CPU. A claim whose words are one-sided ("reaches", "outperforms", "at least",
"matches or beats") is tested one-sided (one_sided(), matches()); a band ('within') only where the
paper's claim is the band.

The words of the papers become tests by the rules below, each written once: a bound comes from a
rule and the paper's numbers, never from a result. A file's verdict comes only from results in the
paper's regime (standing(): its epochs, examples per parameter or per distinct input, or steps, at
least the paper's, recorded in the results' `regime`, on SEEDS seeds or more); below it, the verdict
is Not resolved and the claims judged there are a preview.

CLAIMS is a list, or {mode: list} where the modes measure other quantities. The results record a
digest of the claims that judged them (claims_digest), and a claim is committed strictly before any
results it judges: reproduce.py --check fails otherwise.
"""

import sys

if __name__ == '__main__':  # the experiments' code, not a command (alone: an import's traceback)
    print(
        f'error: {__file__} is imported, not run: run an experiment, '
        'python experiments/<paper>/<name>.py, or a tool, python experiments/tools/<name>.py',
        file=sys.stderr,
    )
    sys.exit(2)

from data.synthetic import ConfigError  # noqa: E402 (after the guard above)


def pct(x):
    return f'{100 * x:.2f}%'


VERDICTS = ('Reproduced', 'Partly', 'Not reproduced', 'Not resolved', 'Not measured')
MARK = {'holds': '✓', 'fails': '✗', 'split': '~', 'unresolved': '?', 'untested': '–'}

# ----------------------------------------------------------------------------- the rules
# "solves", "is able to solve", "to almost perfect accuracy": every seed above 95%. The lowest
# accuracy the papers count as solving is Table 3's 95.80% (standard on Dyck-1); elsewhere they
# report at least 96% where they say so.
SOLVES = 0.95
# "a head attends to X": more than half of its attention mass on X (X gets most of it).
ATTENDS = 0.5
# A trained comparison's verdict needs at least this many seeds (the spread a closeness needs).
SEEDS = 3
# Settings a diagnosis's size sets by a rule from the one it moves, which moving it cannot
# confound: the steps and warm-up that keep the paper's regime, the evaluation at the end, the
# schedule's floor with its learning rate, the context with the length, the softmax scale with the
# head width.
FOLLOWS = {'max_iters', 'eval_interval', 'warmup_iters', 'min_lr', 'block_size', 'attn_scale'}
# A shrunk problem's share (harness/problems.py) below one point counts as one point: it moves an
# accuracy by less than that.
SHARE_FLOOR = 0.01


def solves(says, *of):
    """The word "solves": every seed of each quantity above SOLVES."""
    return dict(says=says, test='above', bound=SOLVES, of=list(of))


def unable(says, *of):
    """The words "is unable to solve": solves() negated, every seed below SOLVES."""
    return dict(says=says, test='below', bound=SOLVES, of=list(of))


def similar(says, of, paper, fmt='pct'):
    """The words "similar", "on par", "matches", "makes no difference": the quantities `of` within
    the paper's own spread of its numbers `paper` (largest less smallest, relative to their mean:
    2.25 and 2.18 bits, 3.2%), on every seed."""
    tol = (max(paper) - min(paper)) / (sum(abs(x) for x in paper) / len(paper))
    return dict(says=says, test='close', of=list(of), tol=round(tol, 6), fmt=fmt)


def one_sided(says, of, worst, lower=True, fmt='pct'):
    """One-sided words, "reaches 4-6% error", "outperforms by a factor of about 2": every seed of
    each quantity at least as good as the paper's `worst` number (the band's weak end: 6% error, a
    ratio of 9/6), where doing better than the paper is not against its claim."""
    return dict(says=says, test='below' if lower else 'above', bound=worst, of=list(of), fmt=fmt)


def matches(says, of, paper, lower=False, fmt='pct'):
    """The words "matches", "reaches the accuracy of", where the first model doing better than the
    second is not against the claim: on every seed the first (of[0]) short of the second by at most
    the paper's own gap of its numbers `paper` (relative to their mean; similar()'s tolerance);
    `lower`: lower is better (a loss)."""
    tol = (max(paper) - min(paper)) / (sum(abs(x) for x in paper) / len(paper))
    return dict(says=says, test='no_worse', of=list(of), tol=round(tol, 6), lower=lower, fmt=fmt)


def of_mode(declared, mode):
    """The claims that judge a mode's results, from an experiment's CLAIMS (a list, or {mode:
    list}). The regime mode adds the full protocol's claims it does not make itself: the paper's
    claims at sizes no CPU hour trains (a depth, a number of heads, a corpus), not measured there,
    so that they keep its verdict from Reproduced."""
    if not isinstance(declared, dict):
        return list(declared)
    own = declared[mode]
    says = {c['says'] for c in own}
    rest = [c for c in declared.get('full', []) if c['says'] not in says]
    return own + rest if mode == 'regime' else own


def seed_range(value):
    """-> (lowest, highest, mean, seeds) of a quantity: its numbers, one per seed, or (results
    recovered from a table of mean +- std (min-max), before the JSON was kept) a dict of those
    statistics."""
    if isinstance(value, dict):
        return value['min'], value['max'], value['mean'], value['n']
    value = [float(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    return min(value), max(value), sum(value) / len(value), len(value)


def spread(lo, hi, mean, relative=False):
    """How far a quantity's seeds spread: max - min, relative to the mean for a relative test."""
    return (hi - lo) / abs(mean) if relative and mean else hi - lo


def judge(claim, values, trend=None, device=None, diagnosis=None):
    """-> the claim with its outcome ('holds', 'fails', 'split' or 'unresolved'), the numbers it
    rests on, its margin (how far the seeds' means are on the claim's side: positive where the means
    agree) and, given a TREND's results (trend.py), the claim judged at each of its sizes and
    whether the margin moves toward the paper's claim. `device`: where the values were measured (a
    claim on GPU speed is unresolved on a CPU). `diagnosis`: trend.py --diagnose's axes, along
    which a claim that does not hold is judged (diagnosed)."""
    missing = [q for q in claim['of'] if q not in values]
    if missing:  # e.g. Yelp, which only the full protocol runs
        return {
            **claim,
            'outcome': 'untested',
            'evidence': f'not measured in this mode: {", ".join(missing)}',
        }
    r = {q: seed_range(values[q]) for q in claim['of']}
    test = claim['test']
    if test in ('close', 'no_worse'):  # on each seed, relative, the seeds paired by their order
        seeds = list(zip(*([float(v) for v in values[q]] for q in claim['of'])))
        gaps = [(max(x) - min(x)) / (sum(map(abs, x)) / len(x) or 1) for x in seeds]
    if test == 'no_worse':  # how far the first falls short of the second (negative: better)
        sign = 1 if claim.get('lower') else -1
        gaps = [sign * (a - b) / ((abs(a) + abs(b)) / 2 or 1) for a, b in seeds]
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
    elif test in ('close', 'no_worse'):
        tests = [(all(g <= claim['tol'] for g in gaps), all(g > claim['tol'] for g in gaps))]
        margins = [claim['tol'] - sum(gaps) / len(gaps)]
    else:
        raise ValueError(f'claim {claim["says"]!r}: unknown test {test!r}')
    outcome = (
        'fails'
        if any(no for _, no in tests)
        else 'holds'
        if all(yes for yes, _ in tests)
        else 'split'
    )
    # resolution: an order the metric's bound cannot separate, a closeness the seeds' spread
    # cannot tell, a GPU's speed measured on a CPU
    bounds = claim.get('bounds', (0.0, 1.0) if claim.get('fmt', 'pct') == 'pct' else ())
    tied = [
        f"{a} and {b} tie at the metric's {'ceiling' if r[a][0] == max(bounds) else 'floor'}"
        for a, b in (zip(order, order[1:]) if test in ('descending', 'ascending') else ())
        if r[a][0] == r[a][1] == r[b][0] == r[b][1] and r[a][0] in bounds
    ]
    wide = [
        q
        for q, (lo, hi, mean, n) in r.items()
        if test in ('within', 'close', 'no_worse')
        and n > 1
        and spread(lo, hi, mean, test != 'within') > claim['tol']
        # one-sided: resolved where it holds, or where every seed falls short by more than this
        and not (test == 'no_worse' and (outcome == 'holds' or min(gaps) > spread(lo, hi, mean, 1)))
    ]
    on_cpu = claim.get('gpu') and not gpu_device(device)
    if tied or wide or on_cpu:
        outcome = 'unresolved'
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
        'close': f'on every seed a spread within {pct(claim.get("tol", 0))} of their mean, the '
        "paper's own",
        'no_worse': 'on every seed the first short of the second by at most '
        f"{pct(claim.get('tol', 0))} of their mean, the paper's own gap",
    }[test]
    if test == 'no_worse':
        shown += f'; short by {", ".join(pct(g) for g in gaps)}'
    if test == 'close':
        shown += f'; spread {", ".join(pct(g) for g in gaps)}'
    why = (
        [f'not resolved: {"; ".join(tied)} on every seed, which separates nothing']
        if tied
        else [f'not resolved: the seeds of {", ".join(wide)} spread wider than the tolerance']
        if wide
        else [f'not resolved: a claim on GPU speed, measured on {device or "a CPU"}']
        if on_cpu
        else []
    )
    evidence = f'{shown} (needs {needs})' + ''.join(f'; {w}' for w in why)
    judged = {**claim, 'outcome': outcome, 'margin': margin, 'evidence': evidence}
    judged = {**judged, **trended(judged, trend)} if trend else judged
    return (
        {**judged, **diagnosed(judged, diagnosis)} if diagnosis and outcome != 'holds' else judged
    )


def gpu_device(device):
    """Whether a results' device (common.device_name) is a GPU: anything but 'CPU (...)'."""
    return bool(device) and not device.startswith('CPU')


def declared(claim):
    """A judged claim (a results JSON's) as it was declared: its statement and test, without what
    judging added."""
    judged = ('outcome', 'margin', 'evidence', 'trend', 'diagnosis')
    return {k: v for k, v in claim.items() if k not in judged}


def along(claim, trend, device=None, seeds=1):
    """The claim judged at each size of a trend (its axis, sizes and values at each) -> (each
    size's outcome and margin, the text that cites them): whether the claim holds at the last size
    where it did not at the first (moving the axis closes the gap), or the margin grows at every
    step (toward the paper's claim), shrinks (away from it), or neither. A diagnosis (`seeds`:
    SEEDS) closes a gap only where the moved point holds on that many seeds, and names the
    settings an axis moves at once (its sizes' `keys`): closing it does not say which of them
    did."""

    def at_size(values):  # a measured axis (trend.py): the claim on the size's quantities alone
        of = [q for q in claim['of'] if q in values] if trend.get('measured') else claim['of']
        if not of:
            return dict(outcome='untested')
        # `device`: where the sizes were measured (a GPU's speed is judged only on a GPU)
        return judge({**declared(claim), 'of': of}, values, device=device)

    at = [at_size(trend['values'][size]) for size in trend['sizes']]
    margins = [c.get('margin') for c in at]  # None: a size that does not measure the claim
    steps = [b - a for a, b in zip(margins, margins[1:]) if a is not None and b is not None]
    last = trend['values'][trend['sizes'][-1]]
    few = min((seed_range(last[q])[3] for q in claim['of'] if q in last), default=0) < seeds
    closes = at[-1]['outcome'] == 'holds' and at[0]['outcome'] != 'holds'
    way = (
        'not measured at every size'
        if None in margins
        else 'closes the gap'
        if closes and not few
        else f'holds at the last size on fewer than {seeds} seeds: toward the paper, not closed'
        if closes
        else 'toward the paper'
        if all(d > 0 for d in steps)
        else 'away from the paper'
        if all(d < 0 for d in steps)
        else 'no steady direction'
    )
    moved = sorted({k for keys in trend.get('keys', {}).values() for k in keys} - FOLLOWS)
    if len(moved) > 1:  # which of them moved it, this axis cannot say
        way += f' (moving {", ".join(moved)} at once)'
    fmt = pct if claim.get('fmt', 'pct') == 'pct' else (lambda x: f'{x:.4g}')
    sizes = ', '.join(
        f'{MARK[c["outcome"]]} {size}' + (f' (margin {fmt(c["margin"])})' if 'margin' in c else '')
        for size, c in zip(trend['sizes'], at)
    )
    points = [
        dict(size=size, outcome=c['outcome'], margin=c.get('margin'))
        for size, c in zip(trend['sizes'], at)
    ]
    return points, f'{sizes}: {way}'


def trended(claim, trend):
    """The claim along a TREND (trend.py's, one axis of the quick protocol), cited in its
    evidence."""
    points, text = along(claim, trend)
    return dict(trend=points, evidence=f'{claim["evidence"]}; trend over {trend["axis"]}: {text}')


def diagnosed(claim, diagnosis):
    """A claim that does not hold, along each axis of a DIAGNOSIS (trend.py --diagnose: the regime
    protocol moved toward the paper one axis at a time, on its seeds), cited in its evidence: which
    axis closes the gap, and which does not. An axis that measures none of the claim's quantities
    (another task's, diagnosed in the same file) is left out."""
    found = {
        axis: along(claim, trend, diagnosis.get('device'), SEEDS)
        for axis, trend in diagnosis['axes'].items()
        if any(q in values for q in claim['of'] for values in trend['values'].values())
    }
    if not found:  # no axis measures it: not diagnosed (claims_text says so)
        return {}
    return dict(
        diagnosis={axis: points for axis, (points, _) in found.items()},
        evidence=claim['evidence']
        + ''.join(f'; moving {axis}: {text}' for axis, (_, text) in found.items()),
    )


def verdict(judged, reasons=()):
    """The file's verdict from its judged claims: Not measured when its mode measured none, Not
    resolved wherever `reasons` (standing()) say the results cannot judge them; else Reproduced when
    every claim holds, Not reproduced when none holds and one fails, Not resolved when none holds
    or fails (split, unresolved or not measured), else Partly: a claim its mode does not measure (a
    corpus a CPU lacks, a model no hour trains) keeps a file from Reproduced."""
    outcomes = [c['outcome'] for c in judged]
    if all(o == 'untested' for o in outcomes):
        return 'Not measured'
    if reasons:
        return 'Not resolved'
    if all(o == 'holds' for o in outcomes):
        return 'Reproduced'
    if 'holds' not in outcomes:
        return 'Not reproduced' if 'fails' in outcomes else 'Not resolved'
    return 'Partly'


def figure(x):
    """A regime quantity as the docstrings write it: 1,250 epochs, 20,000 steps, 2.888 examples."""
    return f'{x:,.0f}' if abs(x) >= 1000 else f'{x:.4g}'


def seeds_of(results):
    """The fewest seeds behind any quantity a claim of the results tests."""
    used = {q for c in results.get('claims', []) for q in c['of'] if q in results['values']}
    return min((seed_range(results['values'][q])[3] for q in used), default=0)


def off_problem(row):
    """Whether a measure of a shrunk problem (harness/problems.py's row) is more than its declared
    factor from the paper's: the problem is not the paper's, and a claim on its quantities (those
    that begin with the row's `of`) is unresolved (judged())."""
    if row.get('factor') is None:
        return False
    a, b = (max(row[k], SHARE_FLOOR) for k in ('ours', 'paper'))
    return max(a, b) / min(a, b) > row['factor']


def shown(value):  # a problem measure: a share as a percentage, a size as it is
    return pct(value) if isinstance(value, float) else value


def standing(results, trains, cpu_regime=True):
    """-> why the results cannot give a verdict ([] when they can): their claims were not recorded
    as declared before the run (results older than that record), or, for an experiment that
    `trains`, no regime recorded, a CPU's results of one with no --regime (`cpu_regime` False: no
    size that tests its claims trains in the paper's regime within an hour), a quantity of the
    regime below the paper's, or fewer than SEEDS seeds."""
    reasons = []
    if not results.get('claims_digest'):
        reasons.append(
            'judged by claims written after the run (results from before claims were '
            'recorded with them): rerun it'
        )
    if not trains:
        return reasons
    if results.get('regime') is None:
        return reasons + ['its training regime was not recorded: rerun it']
    if not cpu_regime and results['mode'] != 'full':
        reasons.append(
            "on a CPU: no size that tests its claims trains in the paper's regime within an hour, "
            'so it has no --regime (its docstring says why); the full protocol on a GPU decides'
        )
    reasons += [
        f"below the paper's regime: {r['quantity']} {figure(r['ours'])} against the paper's "
        f'{figure(r["paper"])}'
        for r in results['regime']
        if r['ours'] < r['paper']
    ]
    n = seeds_of(results)
    return reasons + ([f'{n} seed{"s" * (n != 1)}, fewer than {SEEDS}'] if n < SEEDS else [])


def judged(results, declared, trains, cpu_regime=True, beyond=None):
    """-> the results with the `declared` claims judged on their numbers (and their trend,
    device, diagnosis), their standing and verdict; `trains`: the experiment trains, `cpu_regime`:
    it has a --regime protocol (standing); `beyond`: the DIAGNOSIS's axes beyond a CPU's hour, {a
    claim's first words: why}, kept with each claim they begin."""
    claims = [
        judge(
            c,
            results['values'],
            results.get('trend'),
            results.get('device'),
            results.get('diagnosis'),
        )
        for c in declared
    ]
    # a claim the rules here judge otherwise than they did at its run says so until it runs again
    then = {c['says']: c['outcome'] for c in results.get('claims', []) if 'outcome' in c}
    off = [r for r in results.get('problem') or [] if off_problem(r)]
    for c in claims:  # judge's own dicts
        shrunk = [r for r in off if any(q.startswith(r['of']) for q in c['of'])]
        if shrunk and c['outcome'] != 'untested':  # a problem that is not the paper's
            c['outcome'] = 'unresolved'
            c['evidence'] += "; not resolved: the problem is not the paper's: " + '; '.join(
                f"{r['quantity']} {shown(r['ours'])} against the paper's {shown(r['paper'])}, "
                f'more than {r["factor"]:g}x apart'
                for r in shrunk
            )
        why = [w for says, w in (beyond or {}).items() if c['says'].startswith(says)]
        if why:
            c['beyond'] = why[0]
        if then.get(c['says'], c['outcome']) != c['outcome']:
            c['evidence'] += (
                f'; {MARK[then[c["says"]]]} {then[c["says"]]} when it ran: a rule of '
                'experiments/harness/claims.py changed since, until the experiment runs again'
            )
    results = {**results, 'claims': claims}
    results['standing'] = standing(results, trains, cpu_regime)
    return {**results, 'verdict': verdict(claims, results['standing'])}


def claims_text(results, older=False):
    """The verdict and each claim's outcome, as markdown; `older`: results made by other source than
    the experiment's file now, judged on the claims declared for them. results['standing']: why
    they cannot give a verdict (standing()), if they cannot."""
    # a claim that does not hold in the paper's regime, which no DIAGNOSIS axis measures yet
    todo = f'; not diagnosed yet: experiments/tools/trend.py {results.get("name")} --diagnose'

    def open_in_regime(c):  # a claim of the regime run that does not hold
        return results.get('mode') == 'regime' and c['outcome'] in ('fails', 'split')

    def undiagnosed(c):
        return open_in_regime(c) and 'diagnosis' not in c

    def beyond(c):  # what no diagnosis can move on a CPU (DIAGNOSIS's 'beyond')
        shown = open_in_regime(c) and 'beyond' in c
        return f'; not diagnosed on a CPU: {c["beyond"]}' if shown else ''

    lines = [
        f'- {MARK[c["outcome"]]} {c["outcome"]}: {c["says"]}: {c["evidence"]}'
        + todo * undiagnosed(c)
        + beyond(c)
        for c in results['claims']
    ]
    when = 'after this run, from the paper' if results.get('recovered') else 'before the run'
    when += ', by earlier code than the file now' if older else ''
    reasons = results.get('standing') or []
    preview = (
        [
            '',
            'Not resolved: ' + '; '.join(reasons) + '. The claims below, judged on these numbers, '
            'are a preview.',
        ]
        if reasons
        else []
    )
    regime = (
        [
            '',
            'Regime: '
            + '; '.join(
                f"{r['quantity']} {figure(r['ours'])} (the paper's {figure(r['paper'])})"
                for r in results['regime']
            )
            + f'; {seeds_of(results)} seeds.',
        ]
        if results.get('regime')
        else []
    )
    regime += (
        [
            '',
            "Problem (experiments/harness/problems.py, from the task's generator at the protocol's "
            "keys; the paper's beside it, ✗ more than the file's factor apart): "
            + '; '.join(
                f"{r['quantity']} {shown(r['ours'])} (the paper's {shown(r['paper'])})"
                + (' ✗' if off_problem(r) else '')
                for r in results['problem']
            )
            + '.',
        ]
        if results.get('problem')
        else []
    )
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
    diagnosis = results.get('diagnosis')
    trend += (
        []
        if not diagnosis
        else [
            '',
            # 'how': a diagnosis measured other than by trend.py (throughput's, by hand on a GPU)
            f'Diagnosis ({diagnosis.get("how", "experiments/tools/trend.py --diagnose")}, '
            + (
                f'{diagnosis["seeds"]} seed{"s" * (diagnosis["seeds"] != 1)} a point'
                if any(not t.get('measured') for t in diagnosis['axes'].values())
                else "the regime run's seeds"
            )
            + f', {diagnosis["date"]}): each claim that does not hold, judged as the '
            'protocol moves toward the paper one axis at a time: '
            + '; '.join(
                f'{axis} ({", ".join(t["sizes"])}'
                + (": the regime run's own, each claim on each alone" * bool(t.get('measured')))
                + ')'
                for axis, t in diagnosis['axes'].items()
            )
            + '.',
        ]
    )
    return '\n'.join(
        [
            f'**Verdict: {results["verdict"]}** (claims declared {when}; ✓ every seed agrees, ✗ '
            'none does, ~ the seeds disagree, ? the seeds cannot resolve it, – not measured)',
        ]
        + regime
        + preview
        + ['']
        + lines
        + trend
    )


def in_short(results, older=False):
    """-> (the verdict's circumstances, its counts): '(below the paper's regime; quick)' and
    'agree / contradict / cannot tell' as '2 / 0 / 1' (each claim that holds, that fails, the rest),
    the words of the README's row (reproduce.py) and of an experiment's last lines (meaning())."""
    when = results['mode'] + (', earlier code' if older else '')
    # the first reason it cannot judge, in short (standing()'s, before its details)
    reasons = results.get('standing') or []
    why = reasons[0].split(':')[0].split(' (')[0] if reasons else ''
    outcomes = [c['outcome'] for c in results['claims']]
    agree, contradict = outcomes.count('holds'), outcomes.count('fails')
    counts = f'{agree} / {contradict} / {len(outcomes) - agree - contradict}'
    return f'{why}; {when}' if why else when, counts


def meaning(results, older=False):
    """What the verdict means, in the words a reader uses: an experiment's last lines, the same
    words as its README row (in_short()) and why the verdict is what it is."""
    when, counts = in_short(results, older)
    n = seeds_of(results)
    where = (
        f"in the paper's training regime on {n} seeds"
        if results.get('regime')
        else 'on its own numbers (it measures, it does not train)'
    )
    reasons = results.get('standing') or []
    why = {
        'Reproduced': f'every claim agrees with the paper on every seed, {where}',
        'Partly': f'some claims agree with the paper on every seed and others do not, {where}',
        'Not reproduced': f'no claim agrees with the paper and one or more contradict it, {where}',
        'Not resolved': f'no claim agrees or contradicts on every seed, {where}: the seeds '
        'disagree, or the problem cannot tell (a tie at the ceiling, a problem that is not the '
        "paper's)",
        'Not measured': 'this mode measures none of its claims',
    }[results['verdict']]
    if reasons:  # standing(): these results cannot decide, whatever their claims' outcomes
        why = (
            "a preview, not a test: these results cannot decide the paper's claims ("
            + '; '.join(reasons)
            + "), so the outcomes above say what a run in the paper's regime might find"
        )
    return (
        f'Verdict: {results["verdict"]} ({when}); claims agree / contradict / cannot tell: '
        f'{counts}.\nWhat it means: {why}. How verdicts are decided: experiments/README.md, '
        'section 6.'
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
    """The claims section of a results .md's text; None if it has none: its markers each once and in
    their order (an end before its start would be the empty text, which a replace puts between
    every two characters)."""
    start, end = (text.find(marker) for marker in SECTION)
    if not 0 <= start < end or any(text.count(marker) != 1 for marker in SECTION):
        return None
    return text[start : end + len(SECTION[1])]


def section_in(md, text, rerun):
    """The claims section of the results .md at `md` (its `text`), or a ConfigError that says what
    is wrong with its markers and to `rerun` the command that writes it."""
    section = section_of(text)
    if section is None:
        start, end = SECTION
        raise ConfigError(
            f'{md} lacks the claims markers {start} ... {end}, each once and in that order: '
            f'rerun {rerun}'
        )
    return section
