"""
Theorems that only numbers can check, through the functions of the experiments that report them:
Frozen-QK universal approximation (Thm 5.1 of "Is Random Attention Sufficient?",
experiments/mixit/frozen_qk_approximation.py), random universal transformers (Thms 3.3, 3.4 of
"Fixed universal transformers", experiments/universal/universal_random_rank.py) and their lower
bound on the embedding dimension (Thm 4.1, experiments/universal/universal_lower_bound.py).
"""

import pytest
import torch

from experiments.mixit import frozen_qk_approximation as fqk
from experiments.universal import universal_lower_bound as ulb
from experiments.universal import universal_random_rank as urr
from model import universal_dim


def test_frozen_qk_error_falls_with_heads():
    """Thm 5.1: least squares on the values of more frozen random heads fits the reachable targets
    far better, and, the fits being nested, the training error never rises with the number of
    heads."""
    heads = [1, 2, 4, 8, 16]
    runs = [fqk.measure(heads, train=300, test=300, seed=seed) for seed in (0, 1)]
    for name in ('softmax head', 'tanh of mean'):
        held_out = torch.tensor([[fit[1] for fit in r[name]] for r in runs]).mean(0)
        assert held_out[-1] < 0.5 * held_out[0], (name, held_out)
    for r in runs:
        for fits in r.values():
            train = [fit[0] for fit in fits]
            assert all(b <= a * (1 + 1e-9) for a, b in zip(train, train[1:])), train


def test_frozen_qk_features_are_causal():
    """The features (B.1) at position t depend on tokens 1..t only, and token 1 attends to itself
    alone."""
    g = torch.Generator().manual_seed(0)
    WQ, WK = (torch.randn(3, 4, 4, generator=g, dtype=torch.float64) for _ in range(2))
    X = torch.rand(2, 6, 4, generator=g, dtype=torch.float64)
    Y = X.clone()
    Y[:, 3:] = torch.rand(2, 3, 4, generator=g, dtype=torch.float64)
    F, G = fqk.features(X, WQ, WK), fqk.features(Y, WQ, WK)
    assert torch.equal(F[:, :3], G[:, :3]) and not torch.allclose(F[:, 3:], G[:, 3:])
    assert torch.allclose(F[:, 0], X[:, 0, None].expand(-1, 3, -1))


@pytest.mark.parametrize('looped', [False, True])
@pytest.mark.parametrize('H, L, d, k', [(1, 2, 3, 2), (2, 2, 3, 2), (2, 3, 2, 1)])
def test_random_universal_system_is_solvable(H, L, d, k, looped):
    """Thms 3.3, 3.4: at D = N random backbones give Gamma full column rank, and the solved E makes
    the random model compute the target exactly."""
    N = universal_dim(H, L, d, k)
    for seed in range(3):
        rank, columns, residual, diff = urr.check(H, L, d, k, N, looped, seed)
        assert (rank, columns) == (N, N) and residual < 1e-9 and diff < 1e-9, (rank, residual, diff)


@pytest.mark.parametrize('looped', [False, True])
def test_degenerate_draws_are_not_solvable(looped):
    """A measure-zero draw (a head whose key equals its query) and a width one short lose rank and
    the target."""
    H, L, d, k = 2, 2, 3, 2
    N = universal_dim(H, L, d, k)
    for D, degenerate in ((N, True), (N - 1, False)):
        rank, columns, residual, diff = urr.check(
            H, L, d, k, D, looped, seed=0, degenerate=degenerate
        )
        assert columns == N and rank < N and residual > 1e-3 and diff > 1e-3, (
            D,
            rank,
            residual,
            diff,
        )


def test_lower_bound_grows_exponentially():
    """Thm 4.1: D_min is the least D with D^2 >= H^L, it is exactly H^(L/2) at even L (a factor H
    every two layers), and the exact sparse constructions (Thms 3.1, 3.2) lie above it."""
    for H in (2, 3, 4, 5):
        for L in range(1, 13):
            D = ulb.lower_bound(H, L)
            assert D * D >= H**L > (D - 1) ** 2
            if L % 2 == 0:
                assert D == H ** (L // 2) and ulb.lower_bound(H, L + 2) == H * D
            if H**L <= 4096:  # universal_dim lays out every path
                assert (
                    universal_dim(H, L, 1, 1) >= D and universal_dim(H, L, 1, 1, looped=True) >= D
                )


@pytest.mark.parametrize('H, L', [(2, 1), (2, 3), (3, 2)])
def test_lemma_e3_assignments_give_every_basis_vector(H, L):
    assert torch.equal(ulb.lemma_e3(H, L), torch.eye(H**L, dtype=torch.float64))


@pytest.mark.parametrize('looped', [False, True])
@pytest.mark.parametrize('H, L', [(2, 3), (3, 2), (2, 4)])
def test_count_forbids_below_the_bound_and_not_at_it(H, L, looped):
    """Lemma E.4: below D_min the path products cannot reach every path target; at D_min random ones
    do."""
    D = ulb.lower_bound(H, L)
    below = ulb.counting_matrix(H, L, D - 1, looped, seed=0)
    assert torch.linalg.matrix_rank(below) < H**L and ulb.unreachable(below) > 1e-6
    assert torch.linalg.matrix_rank(ulb.counting_matrix(H, L, D, looped, seed=0)) == H**L
    assert ulb.threshold(H, L, looped, seed=0) == D
