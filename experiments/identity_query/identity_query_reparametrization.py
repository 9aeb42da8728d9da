"""
"W_K, W_V is probably all you need" (Karbevski & Mijoski): Lemma 3.1, Propositions 4.1-4.2, Theorems
4.1-4.3 and Remark 4, made executable. Each proof's weight transformation is a plain function beside
the paper's formula; a check runs the original and the transformed weights on random inputs in
float64 and reports the largest absolute difference of their outputs, round-off where the statement
holds. Where the paper says an identity fails (RoPE with a generic D, a re-tied head), the check
shows that it does.
Conventions are the paper's: row vectors, X is (tokens, d), a layer maps X -> X W, so a change of
basis Theta acts as X -> X Theta and weights absorb Theta^-1 on their input side.
Settings: every statement and convention follows the paper's text (no authors' code followed:
experiments/README.md). Run: seconds on a CPU; --quick is the same run; --smoke: two sizes.
Claims: CLAIMS below, judged by claims.judge.
"""

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from experiments.harness import common

NAME = 'identity_query_reparametrization'
# Random instances, d_k > 1, most with several heads and layers: no identity holds by accident of
# one head or layer
FULL = dict(
    sizes=[
        dict(T=5, d=8, n_head=2, n_layer=1, hidden=16),
        dict(T=7, d=12, n_head=3, n_layer=2, hidden=24),
        dict(T=9, d=16, n_head=4, n_layer=3, hidden=32),
        dict(T=6, d=24, n_head=6, n_layer=4, hidden=48),
    ],
    vocab=11,
)
PROTOCOL = {'full': FULL, 'quick': FULL, 'smoke': dict(FULL, sizes=FULL['sizes'][:2])}
# Each quantity: the largest difference over the sizes (one number). "Unchanged" = below float64
# round-off's reach: u = 1.1e-16 times cond(Theta) (<= ~1e4 at d <= 24), 48-term sums, 4 layers,
# outputs <= 10: ~2e-9, so 1e-8 (about sqrt(u)), eight orders below a broken identity's O(1). Remark
# 4's re-tied head must exceed it. RoPE rows: no claim (the paper mentions RoPE only in passing,
# Sec. 6; the commuting D is ours).
ROUNDOFF = 1e-8
MASKS = ('causal', 'bidirectional')


def exact(says, *of, test='below'):
    return dict(says=says, test=test, bound=ROUNDOFF, fmt='num', of=list(of))


CLAIMS = [
    exact(
        'Lemma 3.1: X -> X Theta, W -> Theta^-1 W leaves attention unchanged',
        *[f'Lemma 3.1, {m}' for m in MASKS],
    ),
    exact(
        'Props. 4.1-4.2: one head depends only on W_Q W_K^T and W_V W_O; a per-head D on W_Q, D^-T '
        'on W_K leaves attention unchanged',
        *[f'Prop. 4.{i}, {m}' for i in (1, 2) for m in MASKS],
    ),
    exact(
        'Theorems 4.1-4.3: W_Q = I (one layer; every layer with skips around attention only; a '
        'shared block) with the logits unchanged',
        *[f'Theorem 4.{i}, {m}' for i in (1, 2, 3) for m in MASKS],
        'Theorem 4.2, tied head',
    ),
    exact(
        'Remark 4: from a tied model, Theorem 4.1 with the head untied keeps the logits',
        'Remark 4, untied head',
    ),
    exact(
        'Remark 4: re-tying the head to E~^T changes the logits (W_Q not orthogonal)',
        'Remark 4, re-tied head',
        test='above',
    ),
]


# ----------------------------------------------------------------------------- the model, in numpy
def rope(x, base=10000.0):
    """Rotary embedding of one head's rows x (T, d_k), rotate-half layout as in model.py."""
    T, dk = x.shape
    angles = np.outer(np.arange(T), base ** (-np.arange(0, dk, 2) / dk))  # (T, d_k / 2)
    cos, sin = np.cos(np.tile(angles, 2)), np.sin(np.tile(angles, 2))
    x1, x2 = x[:, : dk // 2], x[:, dk // 2 :]
    return x * cos + np.concatenate([-x2, x1], 1) * sin


def heads_output(X, W_Q, W_K, W_V, n_head, causal=True, use_rope=False):
    """S_c(X, W_Q, W_K, W_V) of Sec. 3.1: per head h, softmax(M + (X W_Q)_h (X W_K)_h^T / sqrt(d_k))
    (X W_V)_h, concatenated over heads; W_Q=None means the identity (the query is X itself)."""
    T, d = X.shape
    dk = d // n_head
    Q, K, V = (X if W_Q is None else X @ W_Q), X @ W_K, X @ W_V
    mask = np.triu(np.full((T, T), -np.inf), 1) if causal else np.zeros((T, T))
    out = []
    for h in range(n_head):
        s = slice(h * dk, (h + 1) * dk)
        q, k = (rope(Q[:, s]), rope(K[:, s])) if use_rope else (Q[:, s], K[:, s])
        scores = mask + q @ k.T / math.sqrt(dk)  # (T, T)
        e = np.exp(scores - scores.max(-1, keepdims=True))
        out.append(e / e.sum(-1, keepdims=True) @ V[:, s])
    return np.concatenate(out, 1)


def attn(X, w, n_head, causal=True):
    """Attn(X, W_Q, W_K, W_V, W_O) = S_c(X, W_Q, W_K, W_V) W_O; w['W_O']=None is the identity."""
    S = heads_output(X, w['W_Q'], w['W_K'], w['W_V'], n_head, causal)
    return S if w['W_O'] is None else S @ w['W_O']


def transformer(tokens, p, n_head, skips='all', causal=True):
    """Logits of a transformer without normalization (Sec. 4): X_0 = E[x] + E_P[:T], then per block
    Y = X + Attn(X) and X = Y + MLP(Y) (skips='all') or X = MLP(Y) (skips='attention', Theorem 4.2),
    then X_L W_head. p['layers'] may hold one dict per layer or a single shared one (Theorem
    4.3)."""
    X = p['E'][tokens] + p['E_P'][: len(tokens)]
    for w in p['layers']:
        Y = X + attn(X, w, n_head, causal)
        # phi = ReLU; any element-wise phi works alike
        H = np.maximum(Y @ w['W_up'], 0) @ w['W_down']
        X = Y + H if skips == 'all' else H
    return X @ p['W_head']


def random_model(rng, vocab, T, d, n_layer, hidden, shared=False, tied=False):
    def g(*shape):  # N(0, 1 / fan_in)
        return rng.standard_normal(shape) / math.sqrt(shape[0])

    def layer():
        return dict(
            W_Q=g(d, d),
            W_K=g(d, d),
            W_V=g(d, d),
            W_O=g(d, d),
            W_up=g(d, hidden),
            W_down=g(hidden, d),
        )

    layers = [layer()] * n_layer if shared else [layer() for _ in range(n_layer)]
    # rows of norm ~1, like normalized inputs: outputs stay O(1)-O(10)
    E = g(vocab, d) * math.sqrt(vocab / d)
    return dict(
        E=E,
        E_P=g(T, d) * math.sqrt(T / d),
        W_head=E.T.copy() if tied else g(d, vocab),
        layers=layers,
    )


# ----------------------------------------------------------------------------- the constructions
def reparametrize(W_Q, W_K, W_V, theta):
    """Lemma 3.1: f(X, W_Q, W_K, W_V) = f(X Theta, Theta^-1 W_Q, Theta^-1 W_K, Theta^-1 W_V)."""
    inv = np.linalg.inv(theta)
    return inv @ W_Q, inv @ W_K, inv @ W_V


def merge_single_head(w):
    """Prop. 4.1: W_Q, W_K -> I, W_K W_Q^T (scores X W_Q W_K^T X^T unchanged); W_V, W_O -> W_V W_O,
    I."""
    return dict(W_Q=None, W_K=w['W_K'] @ w['W_Q'].T, W_V=w['W_V'] @ w['W_O'], W_O=None)


def in_basis(w, theta_in, theta_out, query_identity):
    """One block's weights for input X Theta_in and output (block output) Theta_out (proofs of Thm
    4.1, Lemma 8.5, Lemma 8.6): W_Q, W_K, W_V, W_up absorb Theta_in^-1 on the left; W_O gets
    Theta_in on the right (the attention skip keeps the basis Theta_in) and W_down gets
    Theta_out."""
    inv = np.linalg.inv(theta_in)
    return dict(
        W_Q=None if query_identity else inv @ w['W_Q'],
        W_K=inv @ w['W_K'],
        W_V=inv @ w['W_V'],
        W_O=w['W_O'] @ theta_in,
        W_up=inv @ w['W_up'],
        W_down=w['W_down'] @ theta_out,
    )


def eliminate_one_query(p, j):
    """Theorem 4.1 (all skips, no normalization): Theta = W_Q^j for every block, E, E_P -> . Theta,
    W_head -> Theta^-1 W_head. Block j's W_Q becomes Theta^-1 W_Q^j = I, set exactly; the others
    stay Theta^-1 W_Q^i (trainable). The head is untied even if E and W_head were tied (Remark 4).
    Theorem 4.3 is the same map (Lemma 8.6: B = Theta^-1 o B~ o Theta): where one block is shared,
    every layer is block j."""
    theta = p['layers'][j]['W_Q']
    layers = [in_basis(w, theta, theta, query_identity=w is p['layers'][j]) for w in p['layers']]
    return dict(
        E=p['E'] @ theta,
        E_P=p['E_P'] @ theta,
        W_head=np.linalg.inv(theta) @ p['W_head'],
        layers=layers,
    )


def eliminate_all_queries(p, tied=False):
    """Theorem 4.2 (skips around attention only): Theta_i = W_Q^i, block i maps basis Theta_i to
    Theta_{i+1} (Lemma 8.5), Theta_{L+1} = I untied, (Theta_1^T)^-1 tied so that W_head = E~^T
    still."""
    thetas = [w['W_Q'] for w in p['layers']]
    thetas.append(np.linalg.inv(thetas[0].T) if tied else np.eye(len(thetas[0])))
    layers = [
        in_basis(w, thetas[i], thetas[i + 1], query_identity=True)
        for i, w in enumerate(p['layers'])
    ]
    E = p['E'] @ thetas[0]
    return dict(E=E, E_P=p['E_P'] @ thetas[0], W_head=E.T if tied else p['W_head'], layers=layers)


# ----------------------------------------------------------------------------- the checks
def err(a, b):
    return float(np.abs(a - b).max())


def check_lemma_3_1(rng, T, d, n_head, causal=True):
    X = rng.standard_normal((T, d))
    W_Q, W_K, W_V = (rng.standard_normal((d, d)) / math.sqrt(d) for _ in range(3))
    theta = rng.standard_normal((d, d)) / math.sqrt(d)
    before = heads_output(X, W_Q, W_K, W_V, n_head, causal)
    general = err(
        before, heads_output(X @ theta, *reparametrize(W_Q, W_K, W_V, theta), n_head, causal)
    )
    _, K, V = reparametrize(W_Q, W_K, W_V, W_Q)  # Theta = W_Q: the query weight becomes I
    return max(general, err(before, heads_output(X @ W_Q, None, K, V, n_head, causal)))


def check_prop_4_1(rng, T, d, causal=True):
    X = rng.standard_normal((T, d))
    w = {k: rng.standard_normal((d, d)) / math.sqrt(d) for k in ('W_Q', 'W_K', 'W_V', 'W_O')}
    return err(attn(X, w, 1, causal), attn(X, merge_single_head(w), 1, causal))


def check_prop_4_2(rng, T, d, n_head, causal=True, use_rope=False, rope_commuting=None):
    """Prop. 4.2: S(X, W_Q D, W_K D^-T, W_V) = S(X, W_Q, W_K, W_V) for D = diag(D_1..D_h), one block
    per head. With RoPE it holds only for blocks that commute with the rotations: D_i acting on
    every frequency pair (i, i + d_k/2) as a complex scalar [[a, -b], [b, a]]; rope_commuting picks
    that form (default: with use_rope) or a generic one."""
    X = rng.standard_normal((T, d))
    W_Q, W_K, W_V = (rng.standard_normal((d, d)) / math.sqrt(d) for _ in range(3))
    dk, commuting = d // n_head, use_rope if rope_commuting is None else rope_commuting
    D = np.zeros((d, d))
    for h in range(n_head):
        s = slice(h * dk, (h + 1) * dk)
        if commuting:
            a, b = rng.standard_normal(dk // 2) + 2, rng.standard_normal(dk // 2)
            D[s, s] = np.block([[np.diag(a), np.diag(b)], [np.diag(-b), np.diag(a)]])
        else:
            D[s, s] = rng.standard_normal((dk, dk)) + 2 * np.eye(dk)  # + 2I: well-conditioned
    before = heads_output(X, W_Q, W_K, W_V, n_head, causal, use_rope)
    return err(
        before, heads_output(X, W_Q @ D, W_K @ np.linalg.inv(D).T, W_V, n_head, causal, use_rope)
    )


def check_theorem(rng, which, vocab, T, d, n_head, n_layer, hidden, causal=True, tied=False):
    """-> max |logits difference| of Theorem `which` ('4.1', '4.2', '4.3'), after asserting that it
    made W_Q = I in exactly the layers the theorem says."""
    p = random_model(rng, vocab, T, d, n_layer, hidden, shared=(which == '4.3'), tied=tied)
    tokens = rng.integers(0, vocab, T)
    skips, j = ('attention' if which == '4.2' else 'all'), int(rng.integers(n_layer))
    q = eliminate_all_queries(p, tied) if which == '4.2' else eliminate_one_query(p, j)
    reduced = [i for i, w in enumerate(q['layers']) if w['W_Q'] is None]
    assert reduced == ([j] if which == '4.1' else list(range(n_layer)))
    return err(
        transformer(tokens, p, n_head, skips, causal), transformer(tokens, q, n_head, skips, causal)
    )


def check_remark_4(rng, vocab, T, d, n_head, n_layer, hidden):
    """Tied original (W_head = E^T), Theorem 4.1's transformation: -> (difference with the untied
    head it builds, difference if the head is re-tied to E~^T, how far Theta^-1 E^T is from
    E~^T)."""
    p = random_model(rng, vocab, T, d, n_layer, hidden, tied=True)
    tokens = rng.integers(0, vocab, T)
    q = eliminate_one_query(p, 0)
    logits = lambda weights: transformer(tokens, weights, n_head)  # noqa: E731
    retied = {**q, 'W_head': q['E'].T}
    return err(logits(p), logits(q)), err(logits(p), logits(retied)), err(q['W_head'], q['E'].T)


# ----------------------------------------------------------------------------- the report
def main():
    args = common.parse_args(__doc__)
    sizes, vocab = PROTOCOL[args.mode]['sizes'], PROTOCOL[args.mode]['vocab']
    rng, rows, values = np.random.default_rng(0), [], {}

    def row(label, statement, checked, diffs, paper='exact (round-off)'):
        rows.append(
            {
                'statement': statement,
                'checked': checked,
                'max abs difference': f'{max(diffs):.1e}',
                'paper': paper,
            }
        )
        values[label] = [max(diffs)]  # one deterministic number: the largest over the sizes

    shapes = ', '.join(f'T={s["T"]} d={s["d"]} h={s["n_head"]} L={s["n_layer"]}' for s in sizes)
    for causal, mask in zip((True, False), MASKS):
        row(
            f'Lemma 3.1, {mask}',
            'Lemma 3.1',
            f'S_c after X -> X Theta, W -> Theta^-1 W; {mask}; {shapes}',
            [check_lemma_3_1(rng, s['T'], s['d'], s['n_head'], causal) for s in sizes],
        )
        row(
            f'Prop. 4.1, {mask}',
            'Prop. 4.1',
            f'one head: (I, W_K W_Q^T, W_V W_O, I); {mask}',
            [check_prop_4_1(rng, s['T'], s['d'], causal) for s in sizes],
        )
        row(
            f'Prop. 4.2, {mask}',
            'Prop. 4.2',
            f'(W_Q D, W_K D^-T), D block-diagonal per head; {mask}',
            [check_prop_4_2(rng, s['T'], s['d'], s['n_head'], causal) for s in sizes],
        )
    row(
        'Prop. 4.2 + RoPE, commuting D',
        'Prop. 4.2 + RoPE',
        'D of complex scalars per frequency pair (commutes with the rotations)',
        [check_prop_4_2(rng, s['T'], s['d'], s['n_head'], use_rope=True) for s in sizes],
    )
    row(
        'Prop. 4.2 + RoPE, generic D',
        'Prop. 4.2 + RoPE',
        'a generic block-diagonal D (does not commute): the identity fails',
        [
            check_prop_4_2(rng, s['T'], s['d'], s['n_head'], use_rope=True, rope_commuting=False)
            for s in sizes
        ],
        paper='not claimed (RoPE: Sec. 6)',
    )
    for which, text in (
        ('4.1', 'all skips, one chosen layer W_Q = I'),
        ('4.2', 'skips around attention only, every W_Q = I'),
        ('4.3', 'shared block, all skips, W_Q = I'),
    ):
        for causal, mask in zip((True, False), MASKS):
            row(
                f'Theorem {which}, {mask}',
                f'Theorem {which}',
                f'{text}; logits; {mask}',
                [check_theorem(rng, which, vocab, **s, causal=causal) for s in sizes],
            )
    row(
        'Theorem 4.2, tied head',
        'Theorem 4.2, tied head',
        'Theta_{L+1} = (Theta_1^T)^-1 keeps W_head = E~^T',
        [check_theorem(rng, '4.2', vocab, **s, tied=True) for s in sizes],
    )
    remark = [check_remark_4(rng, vocab, **s) for s in sizes]
    row(
        'Remark 4, untied head',
        'Remark 4',
        'tied original, Theorem 4.1: the transformed head',
        [r[0] for r in remark],
    )
    row(
        'Remark 4, re-tied head',
        'Remark 4',
        're-tying the head to E~^T instead: the identity fails',
        [r[1] for r in remark],
        paper='fails unless W_Q is orthogonal',
    )
    notes = (
        'float64, random instances (seed 0); "max abs difference" is the largest absolute '
        'difference between the outputs of the original and the transformed weights (attention '
        'outputs, or logits for the theorems) over all sizes listed.'
    )
    common.report(
        args,
        NAME,
        'Identity query: the reparametrization statements, checked numerically',
        list(rows[0]),
        rows,
        notes=notes,
        values=values,
        claims=CLAIMS,
    )


if __name__ == '__main__':
    main()
