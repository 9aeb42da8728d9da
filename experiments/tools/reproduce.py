"""
Every reproduction at once, and the README's tables from their results. No verdict is typed: each
experiment declares its CLAIMS before it runs (harness/claims.py), its results JSON recorded in
experiments/results/ holds the numbers they test, and this file judges the claims on those numbers.
It writes the README's tables between their markers: the answer by task (each variant against the
standard model, ours beside the paper's), then one short row a file (its results linked, verdict,
claims that agree / contradict / cannot tell, time), each line within 200 characters, and each
claim's text and evidence in the claims section of the experiment's results .md.

Only a run with --record writes experiments/results/ (an experiment run by hand writes its results
under its OUT_DIR/results/ and leaves the tracked ones, and --check, as they were): every experiment
this file runs gets --record; --readme and --check read experiments/results/.

    --readme    rewrite the README's reproduction tables and the results .md's claims sections
    --check     fail if the README or a results .md differs from them, or a commit changed an
                experiment's claims with its results
    --quick     run every --quick protocol (the preview) in turn with --record, skipping those
                whose recorded results are current (resumable); then --readme
    --regime    the same with every --regime protocol (the paper's regime at a CPU's size: up to
                an hour each on 2 cores)
    (none)      the same with the full protocols (GPUs, corpora prepared); arguments after `--`
                go to every experiment
    --plan      what each full protocol that trains would cost: runs, steps, tokens, FLOPs, memory,
                H100-hours, corpora; in three tiers (TIERS): as the authors ran it, in bfloat16
                with successive halving, and that on one seed. It trains nothing, but prepares
                the local corpora whose sizes set a protocol's steps (data/text/: about 30 MB,
                a minute on 2 cores the first time)
    --only=A,B  run (or --plan) these experiments alone

Before any experiment runs, the README and every results file it reads are checked (the tables'
markers, each once and in order; results JSON as an experiment writes them) and the README and the
results' folder must be writable: a run never ends in results the README cannot show. Each
experiment runs in a process group of its own, which a stop of this one (Ctrl-C, SIGTERM, SIGHUP)
ends with it; the stop names the results the README does not show yet.
"""

import json
import re
import shutil
import subprocess
import sys
import time
import timeit
from pathlib import Path

import torch
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from data import synthetic
from data.synthetic import ConfigError
from experiments.harness import claims, common
from experiments.harness.common import ROOT
from model import PEAK_FLOPS, PEAK_SHARE

# (file, what it reproduces), per paper, in the README's order
PAPERS = {
    'random attention': [
        ('induction', 'Table 1'),
        ('retrieval_vs_length', 'Figure 2'),
        ('induction_heads_map', 'Figure 3'),
        ('language_modeling', 'Table 2'),
        ('algorithmic', 'Table 3'),
        ('memorization_capacity', 'Table 4'),
        ('mixit_heads', 'Table 9'),
        ('depth', 'Table 5'),
        ('rank_collapse', 'Table 6'),
        ('covariance_sde', 'Theorem 2.1'),
        ('frozen_qk_approximation', 'Theorem 5.1'),
        ('throughput', 'Appendix D'),
    ],
    # "W_K, W_V is probably all you need" and "Fixed universal transformers"
    'identity query and universal': [
        (
            'identity_query_reparametrization',
            'Lemma 3.1, Props 4.1-4.2, Theorems 4.1-4.3, Remark 4',
        ),
        ('identity_query_skip_and_scaling', 'Theorem 8.3, Appendix 8.1'),
        ('identity_query', 'Table 2'),
        ('mlp_basis_transfer', 'Appendix 8.3'),
        ('universal_construction', 'Theorems 3.1, 3.2'),
        ('universal_random_rank', 'Theorems 3.3, 3.4'),
        ('universal_lower_bound', 'Theorem 4.1'),
        ('universal_tasks', 'Tables 1-4'),
        ('universal_dimension', 'Figure 2'),
    ],
}
EXPERIMENTS = [name for files in PAPERS.values() for name, _ in files]
# the recorded results (common.RESULTS): what the runs here write (--record) and the tables read
RESULTS = common.RESULTS
# the experiments run here whose results the README does not show yet (main writes it at the end)
UNSHOWN = []
# the modes whose results the README reads, the first that exists: the paper's protocol, the paper's
# regime at a CPU's size, the preview
MODES = ('full', 'regime', 'quick')
MARKERS = (
    '<!-- reproductions {}: written by experiments/tools/reproduce.py -->',
    '<!-- end of reproductions {} -->',
)
HEAD = [
    '| file | reproduces | verdict | agree / contradict / cannot tell | time |',
    '|---|---|---|---|---|',
]


def load(name, mode, results=None, needs=('name', 'mode', 'date', 'values')):
    """-> an experiment's results JSON in `mode`, None if none; a damaged one, or one without the
    keys this file reads, is bad input (one line, exit 2)."""
    path = common.results_path(mode, name, 'json', results or RESULTS)
    return common.read_results(path, needs) if path.exists() else None


def results_of(name, folder=RESULTS):  # the results the README shows: the first of MODES there
    return next(filter(None, (load(name, mode, folder) for mode in MODES)), None)


def judged(results, name):
    """-> (the results with their claims judged here on their numbers, their standing and verdict;
    whether earlier code made them). The claims are the code's now ({mode: ...} where they differ),
    or, for results of other source, those declared for them."""
    module = common.experiment_module(name)
    declared = claims.of_mode(module.CLAIMS, results['mode'])
    # earlier code (or recovered: no digest)
    older = results.get('source') != common.source_digest(name)
    if older and results.get('claims'):  # the claims declared for those numbers
        declared = [claims.declared(c) for c in results['claims']]
    return common.judged_by(results, name, declared), older


def claims_section(name, mode, folder=RESULTS):
    """-> the claims section of the experiment's results .md in `mode`, judged here on its JSON: the
    verdict and each claim's text and evidence (harness/claims.py's claims_section); None without
    one."""
    results = load(name, mode, folder)
    if results is None:
        return None
    return claims.claims_section(*judged(results, name))


def row(name, reproduces, folder=RESULTS):
    """A README row: the file, linked to its results .md, what it reproduces, the verdict judged
    here (with its mode), its claims that agree (hold) / contradict (fail) / cannot tell (the rest)
    and the wall time. One link a row keeps it within the README's 200 characters a line."""
    results = results_of(name, folder)
    if results is None:
        return f'| {name} | {reproduces} | not run | | |'
    results, older = judged(results, name)
    md = common.results_path(results['mode'], name, 'md', folder)
    link = f'[{name}](experiments/results/{md.name})' if md.exists() else name
    when, counts = claims.in_short(results, older)
    wall = f'{results["wall_s"] / 60:.1f} min' if results.get('wall_s') is not None else ''
    if results.get('pieces'):  # run a task at a time (fair.earlier_tasks): the sum of the runs'
        wall += f' in {len(results["pieces"])} runs'
    if wall and claims.gpu_device(results.get('device')):  # a GPU's minutes say so
        wall += f' on {results["device"]}'
    return f'| {link} | {reproduces} | **{results["verdict"]}** ({when}) | {counts} | {wall} |'


# The README's answer by task: the variants it compares with the standard model, and the tables of
# MARKERS it writes (the answer's, then each paper's)
COLUMNS = ['frozen_qk', 'frozen_mlp', 'mixit', 'identity_query', 'universal_random']
TABLES = ('by task', *PAPERS)


def by_task():
    """-> {task family: [(file, {variant: (the label of our values, the paper's number)})]}, the
    standard model among the variants; the paper's numbers from the file's PAPER, an accuracy as a
    fraction, a loss in nats (a tuple: one a corpus)."""
    paper = {
        n: common.experiment_module(n).PAPER
        for n in ('induction', 'algorithmic', 'universal_tasks', 'language_modeling')
    }
    memorization = common.experiment_module('memorization_capacity').PAPER
    iq = common.experiment_module('identity_query').PAPER

    def induction(task):  # Table 1: fractions
        label = common.experiment_module('induction').TASK_NAMES[task]
        return 'induction', {v: (f'{label}: {v}', x) for v, x in paper['induction'][task].items()}

    def table3(task):  # Table 3: standard, frozen_qk, mixit, in %
        variants = common.experiment_module('algorithmic').VARIANT_ORDER
        row = paper['algorithmic'][task]
        return 'algorithmic', {v: (f'{task}: {v}', x / 100) for v, x in zip(variants, row)}

    def universal(task, ablation):  # Tables 1-4: sparse, random, trained, in %
        row = paper['universal_tasks'][task, ablation]
        variants = ('universal_sparse', 'universal_random', 'standard')
        return 'universal_tasks', {
            v: (f'{task}, {ablation}: {v}', x / 100) for v, x in zip(variants, row)
        }

    lm = paper['language_modeling']  # Table 2: WikiText-103, FineWeb-edu
    return {
        'retrieval': [induction('retrieval')],
        'k-hop': [induction('khop'), universal('2-hop', '+ residual and LN')],
        'memorization': [
            ('memorization_capacity', {v: (v, x[0]) for v, x in memorization.items()})
        ],
        'addition': [table3('addition')],
        'modular addition': [table3('modular_addition')],
        'Dyck-1': [table3('dyck'), universal('dyck', 'attention-only')],
        'sentiment (Yelp)': [table3('yelp')],
        'language modelling (loss)': [
            (
                'language_modeling',
                {
                    v: (f'text: {v}', (lm['wikitext'][v], lm['fineweb_edu'][v]))
                    for v in lm['wikitext']
                },
            ),
            (
                'identity_query',  # Table 2: GPT-2 small's baseline and W_Q = I
                {
                    v: (label, (iq[label]['loss'],))
                    for v, label in (
                        ('standard', 'baseline (124M)'),
                        ('identity_query', 'W_Q = I (117M)'),
                    )
                },
            ),
        ],
    }


def signed(d, loss):  # a difference: of a loss in nats, or of an accuracy in points
    digits = 3 if loss else 1
    return f'{round(d if loss else 100 * d, digits) + 0.0:+.{digits}f}'.replace('-', '−')


def by_task_cell(name, results, labels, variant):
    """One file's cell of `variant`: its result less the standard model's (the seeds' means), linked
    to its results .md (a reference link, by_task_table), its mode where that is not the regime, a
    † where its problem is not the paper's, the paper's difference beside it in parentheses.
    `results`: the file's, judged here (judged()), or None."""
    (ours, paper), (ours0, paper0) = labels[variant], labels['standard']
    loss = isinstance(paper, tuple)  # a loss, one a corpus; an accuracy is one number
    gap = ', '.join(
        signed(x - x0, loss) for x, x0 in zip(*[p if loss else (p,) for p in (paper, paper0)])
    )
    values = (results or {}).get('values', {})
    if ours not in values or ours0 not in values:
        return f'not measured ({gap})'
    d = claims.seed_range(values[ours])[2] - claims.seed_range(values[ours0])[2]
    mode = '' if results['mode'] == 'regime' else f' ({results["mode"]})'
    # a shrunk problem that is not the paper's (claims.off_problem) says so in its cell
    if any(
        claims.off_problem(r) and ours.startswith(r['of']) for r in results.get('problem') or []
    ):
        mode += ' †'
    md = common.results_path(results['mode'], name, 'md').stem  # a reference link's label
    return f'[{signed(d, loss)}{mode}][{md}] ({gap})'


def by_task_table(folder=RESULTS):
    """The answer by task: a row per family with recorded results, a column per variant, then the
    reference links of its cells."""
    rows = []
    for family, sources in by_task().items():
        found = [
            (name, results and judged(results, name)[0], labels)
            for name, labels in sources
            for results in [results_of(name, folder)]
        ]
        if any(results for _, results, _ in found):
            rows.append(
                {'task': family}
                | {v: '; '.join(by_task_cell(*f, v) for f in found if v in f[2]) for v in COLUMNS}
            )
    table = common.markdown(['task', *COLUMNS], rows)
    # the cells' reference links, each results .md once (inline, a row ran past 300 characters)
    labels = dict.fromkeys(re.findall(r'\]\[([\w-]+)\]', table))
    links = [f'[{md}]: experiments/results/{md}.md' for md in labels]
    return '\n'.join([table, '', *links] if links else [table])


def readme_with_tables(text, results=RESULTS):
    """The README's text with the answer by task and each paper's table, made from the results
    JSON, between their markers (which it needs; a start marker naming another writer is
    rewritten)."""
    tables = {'by task': by_task_table(results)} | {
        paper: '\n'.join(HEAD + [row(name, what, results) for name, what in files])
        for paper, files in PAPERS.items()
    }
    for name, table in tables.items():
        start, end = (m.format(name) for m in MARKERS)
        opening = start[: start.index(':') + 1]  # '<!-- reproductions NAME:'
        if text.count(opening) != 1 or text.count(end) != 1 or text.find(opening) > text.find(end):
            raise ConfigError(
                f'README.md lacks the markers {start} ... {end}, each once and in that order: put '
                'them where the table goes'
            )
        i = text.index(opening)
        text = text[:i] + start + '\n' + table + '\n' + text[text.index(end) :]
    return text


def results_with_sections(results=RESULTS):
    """-> {results .md: its text with its claims section as judged here}, for every results JSON of
    every experiment; a .md without a section is bad input (rerun its experiment)."""
    texts = {}
    for name in EXPERIMENTS:
        for mode in MODES:
            section = claims_section(name, mode, results)
            if section is None:
                continue
            md = common.results_path(mode, name, 'md', results)
            if (
                not md.exists()
            ):  # its JSON is there: the .md was moved or deleted, not never written
                raise ConfigError(
                    f'{md} is missing beside {md.with_suffix(".json").name}: git checkout it (if '
                    'committed), or rerun its experiment'
                )
            text = common.read_text(md)
            rerun = common.experiment_path(name).relative_to(common.ROOT)
            texts[md] = text.replace(claims.section_in(md, text, rerun), section)
    return texts


def judged_before(path, code, root=ROOT):
    """-> None if the results JSON at `path` were judged by claims committed strictly before them in
    the git repository `root`, `code` the experiment's file; else what is wrong. Strictly before: in
    the parent of the commit that last wrote the JSON, or in HEAD while the JSON is not committed as
    it is. Results without a claims digest were made before claims were recorded with them, and
    read Not resolved (claims.standing); a copy outside `root` or a shallow clone cannot tell."""

    def git(*args):
        return subprocess.run(['git', '-C', str(root), *args], capture_output=True, text=True)

    digest = common.read_results(path).get('claims_digest')
    if not digest or not path.is_relative_to(root) or not shutil.which('git'):
        return None
    if git('rev-parse', '--is-shallow-repository').stdout.strip() != 'false':
        return None
    relative = path.relative_to(root).as_posix()
    changed = git('status', '--porcelain', '--', relative).stdout.strip()
    last = git('log', '-1', '--format=%H', '--', relative).stdout.strip()
    base = 'HEAD' if changed or not last else f'{last}^'
    source = git('show', f'{base}:{code.relative_to(root).as_posix()}')
    if source.returncode == 0 and common.claims_digest(source.stdout) == digest:
        return None
    when = 'in HEAD' if base == 'HEAD' else f'before {last[:10]}, the commit that wrote them'
    return (
        f'{relative} was judged by claims not committed strictly before it (other claims {when}): '
        'commit the claims alone, then rerun the experiment'
    )


def check(readme=ROOT / 'README.md', results=RESULTS):
    """-> the problems: a committed results file gone, the README's tables or a results .md's
    claims section differ from the results, or a commit changed claims with results."""
    text = common.read_text(readme)
    again = 'run python experiments/tools/reproduce.py --readme'
    problems = (
        []
        if readme_with_tables(text, results) == text
        else [f"the README's reproduction tables differ from the results: {again}"]
    )
    problems += [
        f"{md}'s claims section differs from its results: {again}"
        for md, text in results_with_sections(results).items()
        if md.read_text() != text
    ]
    problems += [
        problem
        for name in EXPERIMENTS
        for mode in MODES
        if (path := common.results_path(mode, name, 'json', results)).exists()
        and (problem := judged_before(path, common.experiment_path(name)))
    ]
    # a results file deleted since its commit, first: --readme would show another mode's instead
    lost = [f'{f} is committed but gone from the checkout: git checkout it' for f in gone(results)]
    return lost + problems


def gone(results):
    """The committed results files deleted from the checkout (git's list; none outside it)."""
    return (
        subprocess.run(
            ['git', '-C', str(ROOT), 'ls-files', '--deleted', '--', str(results)],
            capture_output=True,
            text=True,
        ).stdout.split()
        if shutil.which('git') and results.is_relative_to(ROOT)
        else []
    )


def current(name, mode):
    """Whether an experiment's results for `mode` were written by its code as it is now."""
    return (load(name, mode, needs=['source']) or {}).get('source') == common.source_digest(name)


def command(name, mode, *flags):  # an experiment's command line in `mode`
    flag = [] if mode == 'full' else [f'--{mode}']
    return [sys.executable, str(common.experiment_path(name)), *flag, *flags]


def runnable(mode):
    """The experiments `mode` runs, in the tables' order: in the regime mode those that have one
    (where none fits an hour, the docstring says), else all."""
    return [
        n
        for n in EXPERIMENTS
        if mode != 'regime' or 'regime' in getattr(common.experiment_module(n), 'PROTOCOL', {})
    ]


def run_all(mode, passed, names=None):
    """Runs each experiment of `names` (default: runnable's) not current in `mode`, in EXPERIMENTS'
    order, each with --record (its results into experiments/results/, which the tables read) and in
    a process group of its own (common.run_process) -> the names that failed."""
    runs = names or runnable(mode)
    todo, failed = [n for n in runs if not current(n, mode)], []
    print(f'{len(runs) - len(todo)} of {len(runs)} results are current; running {len(todo)}')
    for name in (bar := tqdm(todo, unit='experiment')):
        bar.set_description(name)
        t0 = time.time()
        proc = common.run_process(command(name, mode, '--record', *passed), cwd=ROOT)
        UNSHOWN.append(name)
        tqdm.write(
            f'{name}: {"failed" if proc.returncode else "done"} in {(time.time() - t0) / 60:.1f} '
            'min'
        )
        failed += [name] if proc.returncode else []
    return failed


def unshown():
    """What a stop or an error says while results written here are not in the README yet."""
    return (
        f'the README does not show the results of {", ".join(UNSHOWN)} yet: run python '
        'experiments/tools/reproduce.py --readme'
        if UNSHOWN
        else ''
    )


def chosen(parser, only, among):
    """-> the experiments --only names (comma-separated), in `among`'s order; all of them without
    it. A name not among them is refused, with the choices."""
    names = [n for n in (only or '').split(',') if n]
    if set(names) - set(among) or only and not names:
        parser.error(f'--only={only}: name experiments among {", ".join(among)}')
    return [n for n in among if n in names] or among


# ----------------------------------------------------------------------------- the cost of the
# protocols. Dense peak FLOP/s of an H100 in each compute dtype a run may take (--dtype): float32
# off the tensor cores, as the authors' drivers run, tf32 and bfloat16 on them (model.PEAK_SHARE);
# MFU, the share of it a run reaches, an assumption (nanoGPT's GPT-2: about 0.4 in bfloat16).
PEAK = {d: PEAK_FLOPS['H100'] * PEAK_SHARE[d] for d in ('float32', 'tf32', 'bfloat16')}
MFU = 0.4


# --plan's tiers of a full reproduction, each the flags every experiment gets (those it takes):
# (1) the paper's protocol as the authors ran it; (2) the paper's regime in bfloat16 with a pruned
# search; (3) the same on one seed, the least that tests every headline claim at the paper's sizes.
# In each, a batch above 128 examples runs as accumulated micro-batches (--micro_batch; an
# experiment with a --micro_batch of its own keeps its default), so that every run fits one GPU.
ONE_GPU = '--micro_batch=128'
TIERS = {
    '1: as the authors ran it (float32, whole grid, 3 seeds)': [ONE_GPU],
    '2: bfloat16, successive halving, 3 seeds': [ONE_GPU, '--dtype=bfloat16', '--halving'],
    '3: bfloat16, successive halving to one point, 1 seed': [
        ONE_GPU,
        '--dtype=bfloat16',
        '--halving_to_one',
        '--seeds=1',
    ],
}


def takes(name, flag):
    """Whether experiment `name` takes a tier's `flag` (--dtype: every one that trains; --halving:
    one that searches, through fair.parse_args; --seeds: those and the ones with a --seeds of their
    own; --micro_batch: the harness's, where the experiment has none of its own)."""
    text = common.experiment_path(name).read_text()
    searches = 'fair.parse_args(' in text
    return {
        '--halving': searches,
        '--halving_to_one': searches,
        '--seeds': searches or "'--seeds'" in text,
        '--micro_batch': "'--micro_batch'" not in text,
    }.get(flag.split('=')[0], True)


def plan(mode, names, passed, out, cpu, tier=()):
    """Prices every run of each experiment's --plan (with the `tier`'s flags it takes, then
    `passed`), written to out; `cpu`: this CPU's float32 FLOP/s (quick: its minutes) -> (the cost
    table's rows, their H100-hours in all, {name: (H100-hours, its largest run's bytes)})."""
    rows, total, per_file = [], 0.0, {}
    # a bar on a terminal: each plan is a process, and one that prepares a corpus takes seconds
    for name in tqdm(names, desc='planning', unit='file', leave=False, disable=None):
        flags = [f for f in tier if takes(name, f)]
        proc = common.run_process(
            command(name, mode, '--plan', f'--out_dir={out}', *flags, *passed),
            capture_output=True,
            text=True,
        )
        if proc.returncode:  # its own error is one line: this one's
            raise ConfigError(
                f'{name}.py --plan failed: '
                f'{(proc.stderr.strip().splitlines() or ["no message"])[-1]}'
            )
        planned = json.loads((out / f'{name}-plan.json').read_text())
        # resume=True: an evaluation
        costs = [common.cost(keys) for keys in planned['runs'] if not keys.get('resume')]
        flops = sum(c['flops'] for c in costs)
        total += (hours := sum(c['flops'] / (PEAK[c['dtype']] * MFU) for c in costs) / 3600)
        per_file[name] = (hours, max(c['memory'] for c in costs))
        rows.append(
            {
                'file': f'`{name}.py`',
                'runs': len(costs),
                'steps': f'{sum(c["steps"] for c in costs):,}',
                'tokens': f'{sum(c["tokens"] for c in costs) / 1e9:.3g}B',
                'FLOPs': f'{flops:.2e}',
                'largest run': f'{max(c["params"] for c in costs) / 1e6:.1f}M params, '
                f'{max(c["memory"] for c in costs) / 2**30:.1f} GiB',
                'dtype': '/'.join(sorted({c['dtype'] for c in costs})),
                'H100-hours': f'{hours:.3g}',
                'on 8 H100s': f'{hours / 8:.3g} h',
                'corpora': ', '.join(planned['corpora']) or '-',
                **({'CPU min': f'{flops / cpu / 60:.3g}'} if mode != 'full' else {}),
            }
        )
    return rows, total, per_file


def priced(mode, names, passed, out):
    """--plan's text: the full protocols' cost table in each of TIERS (quick or regime: the one
    protocol, this CPU's minutes), then a table of each file's H100-hours per tier."""
    tiers = TIERS if mode == 'full' else {mode: []}
    cpu = (
        2
        * 1024**3
        / min(timeit.repeat('a @ a', globals={'a': torch.randn(1024, 1024)}, number=1, repeat=10))
    )
    found = {label: plan(mode, names, passed, out, cpu, flags) for label, flags in tiers.items()}
    text = []
    for label, (rows, total, _) in found.items():
        text += [
            f'Tier {label}' if mode == 'full' else f'The {mode} protocols',
            '',
            common.markdown(list(rows[0]), rows),
            '',
            f'All: {total:.3g} H100-hours ({total / 8:.3g} h on one node of 8 H100s through '
            f'torchrun), at MFU {MFU} of '
            + ', '.join(f'{p / 1e12:.3g} ({d})' for d, p in PEAK.items())
            + f' TFLOP/s. This CPU: {cpu / 1e9:.0f} GFLOP/s on a float32 matmul.',
            '',
        ]
    if mode == 'full':
        tier = {label: f'tier {label.split(":")[0]}' for label in found}
        per_file = [
            {'file': f'`{name}.py`'}
            | {
                tier[label]: f'{f[2][name][0]:.3g} ({f[2][name][1] / 2**30:.1f} GiB)'
                for label, f in found.items()
            }
            for name in names
        ]
        per_file.append(
            {'file': 'all'}
            | {
                tier[label]: f'{f[1]:.3g} ({f[1] / 8:.3g} h on 8 H100s)'
                for label, f in found.items()
            }
        )
        text += [
            "H100-hours per file and tier (its largest run's memory on one GPU):",
            '',
            common.markdown(['file', *tier.values()], per_file),
        ]
    return '\n'.join(text)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ours, passed = (
        (argv[: argv.index('--')], argv[argv.index('--') + 1 :]) if '--' in argv else (argv, [])
    )
    parser = synthetic.Parser(__doc__)
    for flag in ('--readme', '--check', '--quick', '--regime', '--plan'):
        parser.add_argument(flag, action='store_true')
    parser.add_argument(
        '--only',
        default=None,
        type=synthetic.some_names,
        help='these experiments alone (comma-separated), not all',
    )
    args = parser.parse_args(ours)
    mode = 'quick' if args.quick else 'regime' if args.regime else 'full'
    readme = ROOT / 'README.md'
    # one command, of one protocol: nothing given is left unsaid
    commands = [f'--{f}' for f in ('readme', 'check', 'plan') if getattr(args, f)]
    if len(commands) > 1:
        parser.error(f'{commands[0]} and {commands[1]} are two commands: give one of them')
    if args.quick and args.regime:
        parser.error('--quick and --regime are two protocols: give one of them')
    if (args.readme or args.check) and (args.quick or args.regime or args.only or passed):
        parser.error(
            "--quick, --regime, --only and an experiment's arguments after -- choose what runs or "
            'is planned: --readme and --check read every recorded result'
        )
    try:
        if args.plan:
            trains = [n for n in EXPERIMENTS if common.trains(common.experiment_path(n))]
            names = chosen(parser, args.only, trains)
            with common.scratch_folder('plan') as out:  # removed, whatever happens
                print(priced(mode, names, passed, Path(out)))
            print(
                'Not listed (no train.py runs):',
                ', '.join(n for n in EXPERIMENTS if n not in trains),
            )
            return 0
        if args.check:
            problems = check(readme, RESULTS)
            print('\n'.join(f'error: {p}' for p in problems) or 'the README matches the results')
            return 1 if problems else 0
        names = [] if args.readme else chosen(parser, args.only, runnable(mode))
        # before any experiment runs: no committed results file is gone (the README would drop
        # its rows), what the README is made of is whole, and it and the results it shows can be
        # written
        for f in gone(RESULTS)[:1]:
            raise ConfigError(f'{f} is committed but gone from the checkout: git checkout it')
        readme_with_tables(common.read_text(readme), RESULTS)
        for path in [readme, *results_with_sections(RESULTS)] + [
            common.results_path(mode, n, ext, RESULTS) for n in names for ext in ('json', 'md')
        ]:
            common.check_writable(path, 'make the checkout writable')
        failed = run_all(mode, passed, names) if names else []
        text = readme_with_tables(common.read_text(readme), RESULTS)
        sections = results_with_sections(RESULTS)
        common.write_text(readme, text)
        for md, text in sections.items():
            common.write_text(md, text)
        UNSHOWN.clear()
    except ConfigError as e:  # bad input: a damaged results file, a README without its markers
        print(f'error: {e}' + (f'; {unshown()}' if UNSHOWN else ''), file=sys.stderr)
        return 2
    print(
        f"wrote the reproduction tables of {readme} and the results' claims sections"
        + (f'; failed: {", ".join(failed)}' if failed else '')
    )
    return 1 if failed else 0


if __name__ == '__main__':
    common.stop_on_signal(unshown)  # Ctrl-C: one line, and the experiment running ends too
    sys.exit(main())
