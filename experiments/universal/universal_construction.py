"""
"Fixed universal transformers", Theorems 3.1 and 3.2, checked numerically: one fixed attention-only
model computes any target of the class T(H, L, d, k) exactly when only its input embedding E (and
the readout U) changes.

For a grid of (H, L, d, k) this builds random targets (Q, K: d x k and V: d x d, Gaussian /
sqrt(d)), computes their programs E, U with model.universal_embedding, and runs the fixed model.py
backbone (universal_sparse: 0/1 selectors; looped: one block's matrices in every layer, our routing
derivation) on X E. It prints the width D against the formula D = 2Hk(1 + H + ... + H^(L-1)) + d H^L
(looped: (2Hk + d)(1 + H + ... + H^L)), the largest |universal - target| over random inputs X (m x
d), causal and bidirectional, in float64 and float32, and the nonzero count of every fixed matrix
and of E and U.

Settings: the construction follows the paper's text (Theorems 3.1, 3.2; no authors' code followed:
experiments/README.md), the looped routing is our derivation where its formulas were lost, the grid
of shapes ours. Run: python experiments/universal/universal_construction.py (seconds on a CPU;
--quick is the same run; --smoke: two shapes). The paper's claim is exactness: differences at float
round-off. Claims: CLAIMS below, judged by claims.judge.
"""

import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from experiments.harness import common
from model import GPT, GPTConfig, VARIANTS, universal_dim, universal_embedding

NAME = 'universal_construction'
# per mode: the target shapes (H heads, L layers, width d, head width k); the full grid takes
# seconds, so --quick runs it too
FULL = [
    dict(H=1, L=1, d=4, k=2),
    dict(H=1, L=3, d=4, k=2),
    dict(H=2, L=2, d=5, k=3),
    dict(H=3, L=2, d=5, k=3),
    dict(H=2, L=3, d=6, k=2),
    dict(H=4, L=2, d=8, k=4),
    dict(H=2, L=4, d=4, k=2),
]
PROTOCOL = {
    'full': dict(shapes=FULL),
    'quick': dict(shapes=FULL),
    'smoke': dict(shapes=[dict(H=1, L=1, d=4, k=2), dict(H=2, L=2, d=5, k=3)]),
}
# Theorems 3.1 and 3.2 are exact: Z_L U = X_L for every target, causal mask or not. Each quantity is
# the largest |Z_L U - X_L| of one form in one dtype over every shape, input and mask (one
# deterministic number), and "exact" means below what round-off makes of it. The universal model
# computes the target's products in another order ((X V_p) Q against X (V_p Q), E holding products
# of up to L value matrices), so the two differ by round-off of inner products of at most d L <= 18
# terms and a softmax, ~1e2 units of round-off u relative, on outputs of order 1-10 (sums over H^L
# <= 16 paths): ~1e3 u. The bound is sqrt(eps) of the dtype (1.5e-8 in float64, 3.5e-4 in float32:
# agreement to half the digits), above that estimate and far below the order-one difference of a
# program that misses any path. Theorem 3.2 is tested on our routing (its formulas were lost).
CLAIMS = [
    dict(
        says='Theorem 3.1: the fixed sparse model computes every target exactly (float64)',
        test='below',
        bound=torch.finfo(torch.float64).eps ** 0.5,
        fmt='num',
        of=['unrolled, float64'],
    ),
    dict(
        says='Theorem 3.2: the looped (weight-tied) sparse model computes every target exactly '
        '(float64)',
        test='below',
        bound=torch.finfo(torch.float64).eps ** 0.5,
        fmt='num',
        of=['looped, float64'],
    ),
    dict(
        says='Theorems 3.1-3.2 in float32: exact up to float32 round-off',
        test='below',
        bound=torch.finfo(torch.float32).eps ** 0.5,
        fmt='num',
        of=['unrolled, float32', 'looped, float32'],
    ),
]


def formula(H, L, d, k, looped):
    nodes = sum(H**j for j in range(L))
    return (2 * H * k + d) * (nodes + H**L) if looped else 2 * H * k * nodes + d * H**L


def target_forward(target, X, causal):
    """The target T(H, L, d, k): X_l = sum_h softmax(mask(X Q K^T X^T / sqrt(k))) X V (batched over
    X)."""
    m = X.shape[-2]
    mask = (
        torch.ones(m, m, dtype=torch.bool).tril() if causal else torch.ones(m, m, dtype=torch.bool)
    )
    for layer in target:
        X = sum(
            torch.softmax(
                ((X @ Q) @ (X @ K).transpose(-1, -2) / math.sqrt(Q.shape[1])).masked_fill(
                    ~mask, -math.inf
                ),
                -1,
            )
            @ (X @ V)
            for Q, K, V in layer
        )
    return X


def check(H, L, d, k, looped, causal, dtype, seed=0, m=8, batch=16):
    g = torch.Generator().manual_seed(seed)

    def draw(*shape):
        return (torch.randn(shape, generator=g, dtype=torch.float64) / math.sqrt(shape[0])).to(
            dtype
        )

    target = [[(draw(d, k), draw(d, k), draw(d, d)) for _ in range(H)] for _ in range(L)]
    X = torch.randn(batch, m, d, generator=g, dtype=torch.float64).to(dtype)
    E, U = universal_embedding(target, H, L, d, k, looped)
    D = universal_dim(H, L, d, k, looped)
    model = GPT(
        GPTConfig(
            **VARIANTS['universal_sparse'],
            n_head=H,
            n_layer=L,
            n_embd=D,
            universal_d=d,
            universal_k=k,
            looped=looped,
            causal=causal,
            vocab_size=2,
            block_size=m,
        )
    ).to(dtype)
    Z = X @ E
    with torch.no_grad():
        for block in model.h:
            Z = block(Z)
    diff = ((Z @ U) - target_forward(target, X, causal)).abs().max().item()
    attn = model.h[0].attn
    nonzero = {
        'q': int((attn.q != 0).sum()),
        'k': int((attn.k != 0).sum()),
        'v': int((attn.v != 0).sum()),
        'E': int((E != 0).sum()),
        'U': int((U != 0).sum()),
    }
    return D, diff, nonzero


def main():
    args = common.parse_args(__doc__)
    shapes = PROTOCOL[args.mode]['shapes']
    # --quick is the full protocol: its results file too
    args.mode = 'smoke' if args.mode == 'smoke' else 'full'
    rows, values = [], {}
    for looped in (False, True):
        form = 'looped' if looped else 'unrolled'
        for shape in shapes:
            H, L, d, k = (shape[key] for key in 'HLdk')
            diffs = {}
            for causal in (True, False):
                for dtype in (torch.float64, torch.float32):
                    D, diffs[causal, dtype], nonzero = check(H, L, d, k, looped, causal, dtype)
            # one number: the largest over shapes and masks
            for dtype in (torch.float64, torch.float32):
                label = f'{form}, {str(dtype).split(".")[-1]}'
                values[label] = [
                    max(values.get(label, [0.0])[0], diffs[True, dtype], diffs[False, dtype])
                ]
            pair = {
                causal: f'{diffs[causal, torch.float64]:.1e} / {diffs[causal, torch.float32]:.1e}'
                for causal in (True, False)
            }
            counts = (
                f'{nonzero["q"] // H}, {nonzero["k"] // H}, {nonzero["v"] // H}; '
                f'{nonzero["E"]}; {nonzero["U"]}'
            )
            rows.append(
                {
                    'form': form,
                    'H': H,
                    'L': L,
                    'd': d,
                    'k': k,
                    'D': D,
                    'formula': formula(H, L, d, k, looped),
                    'max diff causal f64 / f32': pair[True],
                    'max diff bidirectional f64 / f32': pair[False],
                    'nonzeros per head q, k, v (layer 1); E; U': counts,
                    'paper': 'exact',
                }
            )
    notes = (
        'Random targets (Gaussian / sqrt(d) weights), 16 random inputs X of 8 tokens each; max '
        'diff = the largest |Z_L U - X_L| over them. Nonzeros: the 0/1 matrices of layer 1 per '
        'head (q and k select k columns, v keeps or routes columns), E dense where it holds the '
        'program, U the identity on the leaf slots. The '
        "looped form is our derivation (the seed's Theorem 3.2 lost its formulas): every path "
        'prefix owns '
        '2Hk + d columns and each layer routes block s to block s[1:], so the same three matrices '
        'serve every layer.'
    )
    common.report(
        args,
        NAME,
        'Universal transformers: the sparse construction is exact',
        list(rows[0]),
        rows,
        notes=notes,
        values=values,
        claims=CLAIMS,
    )


if __name__ == '__main__':
    main()
