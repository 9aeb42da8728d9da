"""
The identity-query statements (experiments/identity_query/identity_query_reparametrization.py and
identity_query_skip_and_scaling.py) hold to float64 round-off on random instances: multi-head,
multi-layer, causal and bidirectional; and fail where the paper says they must.
"""

import numpy as np
import pytest

from experiments.identity_query import identity_query_reparametrization as iq
from experiments.identity_query import identity_query_skip_and_scaling as skip

# (T, d, n_head, n_layer, hidden)
SIZES = [(5, 8, 2, 1, 16), (7, 12, 3, 2, 24), (9, 16, 4, 3, 32), (6, 24, 6, 4, 48)]
TOL = 1e-9


@pytest.mark.parametrize('T, d, n_head, n_layer, hidden', SIZES)
@pytest.mark.parametrize('causal', [True, False])
def test_attention_identities(T, d, n_head, n_layer, hidden, causal):
    rng = np.random.default_rng(T)
    assert iq.check_lemma_3_1(rng, T, d, n_head, causal) < TOL
    assert iq.check_prop_4_1(rng, T, d, causal) < TOL
    assert iq.check_prop_4_2(rng, T, d, n_head, causal) < TOL


@pytest.mark.parametrize('T, d, n_head, n_layer, hidden', SIZES)
def test_prop_4_2_with_rope(T, d, n_head, n_layer, hidden):
    rng = np.random.default_rng(d)
    assert iq.check_prop_4_2(rng, T, d, n_head, use_rope=True) < TOL
    # generic D: no
    assert iq.check_prop_4_2(rng, T, d, n_head, use_rope=True, rope_commuting=False) > 1e-3


def test_rope_matches_model():
    """The numpy RoPE is model.py's (rotate-half layout), so the RoPE check is about the model's
    RoPE."""
    import torch
    from model import apply_rope, rope_tables

    x = np.random.default_rng(0).standard_normal((6, 8))
    cos, sin = rope_tables(6, 8, 10000.0)
    ours = apply_rope(torch.tensor(x)[None, None], cos.double(), sin.double())[0, 0].numpy()
    assert np.abs(ours - iq.rope(x)).max() < 1e-6  # model.py builds its tables in float32


@pytest.mark.parametrize('which', ['4.1', '4.2', '4.3'])
@pytest.mark.parametrize('T, d, n_head, n_layer, hidden', SIZES)
@pytest.mark.parametrize('causal', [True, False])
def test_query_elimination_theorems(which, T, d, n_head, n_layer, hidden, causal):
    rng = np.random.default_rng(n_layer)
    assert iq.check_theorem(rng, which, 11, T, d, n_head, n_layer, hidden, causal) < TOL


def test_theorem_4_2_tied_and_remark_4():
    rng = np.random.default_rng(1)
    assert iq.check_theorem(rng, '4.2', 11, 7, 12, 3, 3, 24, tied=True) < TOL
    transformed, retied, untie = iq.check_remark_4(rng, 11, 7, 12, 3, 2, 24)
    assert transformed < TOL and retied > 1e-3 and untie > 1e-3


def test_theorems_fail_without_their_assumptions():
    """The constructions are not vacuous: a skip around the MLP breaks Theorem 4.2's all-layer
    construction (Remark 1), and a weight perturbation of the transformed model changes the
    logits."""
    rng = np.random.default_rng(2)
    p = iq.random_model(rng, 11, 7, 12, 3, 24)
    tokens = rng.integers(0, 11, 7)
    q = iq.eliminate_all_queries(p)
    assert (
        iq.err(iq.transformer(tokens, p, 3, 'attention'), iq.transformer(tokens, q, 3, 'attention'))
        < TOL
    )
    assert iq.err(iq.transformer(tokens, p, 3, 'all'), iq.transformer(tokens, q, 3, 'all')) > 1e-3
    q['layers'][0]['W_K'] = q['layers'][0]['W_K'] + 1e-3
    assert (
        iq.err(iq.transformer(tokens, p, 3, 'attention'), iq.transformer(tokens, q, 3, 'attention'))
        > 1e-6
    )


@pytest.mark.parametrize('h, m', [(2, 4), (3, 5), (4, 8)])
def test_theorem_8_3_both_directions(h, m):
    r = skip.check_theorem_8_3(np.random.default_rng(h), h, m)
    assert r['subsets_absorbable'] >= 1 and r['sufficiency'] < TOL
    assert r['subsets_generic'] == 0 and r['generic_best'] > 1e-2


def test_appendix_8_1_score_std():
    standard, reduced = skip.score_std(np.random.default_rng(0), n=4000)
    assert abs(standard - 0.02**2 * 8) < 0.0003 and abs(reduced - 0.02 / 12**0.5) < 0.0003
    assert 1.6 < reduced / standard < 2.0


def test_table_2_parameter_counts():
    """The five GPT-2 configurations of the paper's Table 2 have exactly its total / non-embedding
    counts."""
    from experiments.identity_query import identity_query as exp

    labels = exp.PROTOCOL['full']['sweep']['variant']
    got = [tuple(round(c / 1e6, 2) for c in exp.counts(label)) for label in labels]
    assert got == [(exp.PAPER[label]['total'], exp.PAPER[label]['non_emb']) for label in labels]
    assert got == [
        (124.37, 84.95),
        (117.30, 77.88),
        (117.92, 79.73),
        (117.30, 77.88),
        (124.37, 84.95),
    ]


def test_basis_transfer_baseline_and_scores():
    """mlp_basis_transfer.py: the ridge baseline recovers a linear target exactly, and the scores
    are the relative L2 error and mean cosine of their definitions."""
    import torch
    from experiments.identity_query import mlp_basis_transfer as mb

    Z = torch.randn(6, 6, generator=torch.Generator().manual_seed(0))
    linear = mb.fit_linear(lambda x: x @ Z.T - x, 6, 4096, 'cpu')
    x = torch.randn(500, 6)
    y = x @ Z.T - x
    err, cos = mb.scores(linear, y, x)
    assert err < 1e-4 and abs(cos - 1) < 1e-6
    err, cos = mb.scores(lambda x: -x @ Z.T + x, y, x)  # the negated prediction: error 2, cosine -1
    assert abs(err - 2) < 1e-5 and abs(cos + 1) < 1e-5
