"""
The exact statements of "W_K, W_V is probably all you need" (Karbevski & Mijoski), made executable.

Each proof constructs new weights; here each construction is a plain function beside the paper's
formula, and a check runs the original and the transformed model on random inputs in float64 and
reports the largest absolute difference of their outputs (round-off, ~1e-13, when the statement holds).
Conventions are the paper's: row vectors, X is (tokens, d), a layer maps X -> X W, so a change of basis
Theta acts as X -> X Theta and weights absorb Theta^-1 on their input side.

    Lemma 3.1     f(X, W_Q, W_K, W_V) = f(X W_Q, I, W_Q^-1 W_K, W_Q^-1 W_V)
    Prop. 4.1     single head: Attn(X, W_Q, W_K, W_V, W_O) = Attn(X, I, W_K W_Q^T, W_V W_O, I)
    Prop. 4.2     multi-head: S(X, W_Q D, W_K D^-T, W_V) = S(X, W_Q, W_K, W_V), D block-diagonal per head;
                  with RoPE only for blocks that commute with the rotations (complex scalars per frequency)
    Theorem 4.1   no normalization, skips around attention and MLP: any one layer's W_Q becomes I
    Theorem 4.2   skips around attention only: every layer's W_Q becomes I at once (tied or untied head)
    Theorem 4.3   weight-shared layers: the shared W_Q becomes I
    Remark 4      a tied embedding/LM head must be untied by Theorem 4.1's transformation
    Theorem 8.3   W_2 ReLU(W_1 x) + x = V_2 ReLU(V_1 x) has a solution iff W_2[:, J] W_1[J, :] = -I for some J
    Appendix 8.1  with W_Q = I the initial attention scores are ~1.8x wider (0.0058 vs 0.0032 at GPT-2 small)

Run: python experiments/identity_query_theory.py (under a minute on a CPU; --quick is the same run, --smoke
fewer sizes).
Prints the table and writes out/identity_query_theory.json and experiments/results/identity_query_theory.md.
tests/test_identity_query.py runs every check and fails if an identity breaks.
"""
import itertools
import math

import numpy as np

import common

NAME = 'identity_query_theory'


# ----------------------------------------------------------------------------- the model, in numpy

def softmax(a):
    a = a - a.max(-1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(-1, keepdims=True)


def rope(x, base=10000.0):
    """Rotary embedding of one head's rows x (T, d_k), rotate-half layout as in model.py."""
    T, dk = x.shape
    angles = np.outer(np.arange(T), base ** (-np.arange(0, dk, 2) / dk))
    cos, sin = np.cos(np.tile(angles, 2)), np.sin(np.tile(angles, 2))
    x1, x2 = x[:, :dk // 2], x[:, dk // 2:]
    return x * cos + np.concatenate([-x2, x1], 1) * sin


def heads_output(X, W_Q, W_K, W_V, n_head, causal=True, use_rope=False):
    """S_c(X, W_Q, W_K, W_V) of Sec. 3.1: per head h, softmax(M + (X W_Q)_h (X W_K)_h^T / sqrt(d_k)) (X W_V)_h,
    concatenated over heads; W_Q=None means the identity (the query is X itself)."""
    T, d = X.shape
    dk = d // n_head
    Q, K, V = (X if W_Q is None else X @ W_Q), X @ W_K, X @ W_V
    mask = np.triu(np.full((T, T), -np.inf), 1) if causal else np.zeros((T, T))
    out = []
    for h in range(n_head):
        s = slice(h * dk, (h + 1) * dk)
        q, k = (rope(Q[:, s]), rope(K[:, s])) if use_rope else (Q[:, s], K[:, s])
        out.append(softmax(mask + q @ k.T / math.sqrt(dk)) @ V[:, s])
    return np.concatenate(out, 1)


def attn(X, w, n_head, causal=True):
    """Attn(X, W_Q, W_K, W_V, W_O) = S_c(X, W_Q, W_K, W_V) W_O; w['W_O']=None is the identity."""
    S = heads_output(X, w['W_Q'], w['W_K'], w['W_V'], n_head, causal)
    return S if w['W_O'] is None else S @ w['W_O']


def mlp(Z, w):
    return np.maximum(Z @ w['W_up'], 0) @ w['W_down']  # phi = ReLU; any element-wise phi works alike


def transformer(tokens, p, n_head, skips='all', causal=True):
    """Logits of a transformer without normalization (Sec. 4): X_0 = E[x] + E_P[:T], then per block
    Y = X + Attn(X) and X = Y + MLP(Y) (skips='all') or X = MLP(Y) (skips='attention', Theorem 4.2),
    then X_L W_head. p['layers'] may hold one dict per layer or a single shared one (Theorem 4.3)."""
    X = p['E'][tokens] + p['E_P'][:len(tokens)]
    for w in p['layers']:
        Y = X + attn(X, w, n_head, causal)
        X = Y + mlp(Y, w) if skips == 'all' else mlp(Y, w)
    return X @ p['W_head']


def random_model(rng, vocab, T, d, n_layer, hidden, shared=False, tied=False):
    g = lambda *shape: rng.standard_normal(shape) / math.sqrt(shape[0])
    layer = lambda: dict(W_Q=g(d, d), W_K=g(d, d), W_V=g(d, d), W_O=g(d, d), W_up=g(d, hidden), W_down=g(hidden, d))
    layers = [layer()] * n_layer if shared else [layer() for _ in range(n_layer)]
    E = g(vocab, d) * math.sqrt(vocab / d)  # rows of norm ~1, like normalized inputs: outputs stay O(1)-O(10)
    return dict(E=E, E_P=g(T, d) * math.sqrt(T / d), W_head=E.T.copy() if tied else g(d, vocab), layers=layers)


# ----------------------------------------------------------------------------- the constructions

def reparametrize(W_Q, W_K, W_V, theta):
    """Lemma 3.1: (X, W_Q, W_K, W_V) -> (X Theta, Theta^-1 W_Q, Theta^-1 W_K, Theta^-1 W_V)."""
    inv = np.linalg.inv(theta)
    return inv @ W_Q, inv @ W_K, inv @ W_V


def merge_single_head(w):
    """Prop. 4.1: W_Q, W_K -> I, W_K W_Q^T (scores X W_Q W_K^T X^T unchanged); W_V, W_O -> W_V W_O, I."""
    return dict(W_Q=None, W_K=w['W_K'] @ w['W_Q'].T, W_V=w['W_V'] @ w['W_O'], W_O=None)


def in_basis(w, theta_in, theta_out, query_identity):
    """One block's weights for input X Theta_in and output (block output) Theta_out (proofs of Thm 4.1,
    Lemma 8.5, Lemma 8.6): W_Q, W_K, W_V, W_up absorb Theta_in^-1 on the left; W_O gets Theta_in on the
    right (the attention skip keeps the basis Theta_in) and W_down gets Theta_out."""
    inv = np.linalg.inv(theta_in)
    return dict(W_Q=None if query_identity else inv @ w['W_Q'], W_K=inv @ w['W_K'], W_V=inv @ w['W_V'],
                W_O=w['W_O'] @ theta_in, W_up=inv @ w['W_up'], W_down=w['W_down'] @ theta_out)


def eliminate_one_query(p, j):
    """Theorem 4.1 (all skips, no normalization): Theta = W_Q^j for every block, E, E_P -> . Theta,
    W_head -> Theta^-1 W_head. Block j's W_Q becomes Theta^-1 W_Q^j = I, set exactly; the others stay
    Theta^-1 W_Q^i (trainable). The head is untied even if E and W_head were tied (Remark 4)."""
    theta = p['layers'][j]['W_Q']
    layers = [in_basis(w, theta, theta, query_identity=(i == j)) for i, w in enumerate(p['layers'])]
    return dict(E=p['E'] @ theta, E_P=p['E_P'] @ theta, W_head=np.linalg.inv(theta) @ p['W_head'], layers=layers)


def eliminate_all_queries(p, tied=False):
    """Theorem 4.2 (skips around attention only): Theta_i = W_Q^i, block i maps basis Theta_i to
    Theta_{i+1} (Lemma 8.5), Theta_{L+1} = I untied, (Theta_1^T)^-1 tied so that W_head = E~^T still."""
    thetas = [w['W_Q'] for w in p['layers']]
    thetas.append(np.linalg.inv(thetas[0].T) if tied else np.eye(len(thetas[0])))
    layers = [in_basis(w, thetas[i], thetas[i + 1], query_identity=True) for i, w in enumerate(p['layers'])]
    E = p['E'] @ thetas[0]
    return dict(E=E, E_P=p['E_P'] @ thetas[0], W_head=E.T if tied else p['W_head'], layers=layers)


def eliminate_shared_query(p):
    """Theorem 4.3 (shared block, all skips): B = Theta^-1 o B~ o Theta with Theta = W_Q (Lemma 8.6), so
    B^L = Theta^-1 o B~^L o Theta: one reduced block, E, E_P -> . Theta, W_head -> Theta^-1 W_head."""
    theta = p['layers'][0]['W_Q']
    block = in_basis(p['layers'][0], theta, theta, query_identity=True)
    return dict(E=p['E'] @ theta, E_P=p['E_P'] @ theta, W_head=np.linalg.inv(theta) @ p['W_head'],
                layers=[block] * len(p['layers']))


def absorb_skip(W1, W2, J):
    """Theorem 8.3, sufficiency: with W_2[:, J] W_1[J, :] = -I, V_1 = D W_1 (D = I - 2 diag(1_J), flips the
    rows in J) and V_2 = W_2 give V_2 ReLU(V_1 x) = W_2 ReLU(W_1 x) + x."""
    D = np.ones(len(W1))
    D[list(J)] = -1
    return D[:, None] * W1, W2


def skip_absorbing_subsets(W1, W2, tol=1e-9):
    """Theorem 8.3: the index sets J, |J| >= h, with W_2[:, J] W_1[J, :] = -I (brute force over subsets)."""
    m, h = W1.shape
    return [J for r in range(h, m + 1) for J in itertools.combinations(range(m), r)
            if np.abs(W2[:, J] @ W1[J, :] + np.eye(h)).max() < tol]


# ----------------------------------------------------------------------------- the checks

def err(a, b):
    return float(np.abs(a - b).max())


def check_lemma_3_1(rng, T, d, n_head, causal=True):
    X = rng.standard_normal((T, d))
    W_Q, W_K, W_V = (rng.standard_normal((d, d)) / math.sqrt(d) for _ in range(3))
    theta = rng.standard_normal((d, d)) / math.sqrt(d)
    before = heads_output(X, W_Q, W_K, W_V, n_head, causal)
    general = err(before, heads_output(X @ theta, *reparametrize(W_Q, W_K, W_V, theta), n_head, causal))
    _, K, V = reparametrize(W_Q, W_K, W_V, W_Q)  # Theta = W_Q: the query weight becomes I
    return max(general, err(before, heads_output(X @ W_Q, None, K, V, n_head, causal)))


def check_prop_4_1(rng, T, d, causal=True):
    X = rng.standard_normal((T, d))
    w = {k: rng.standard_normal((d, d)) / math.sqrt(d) for k in ('W_Q', 'W_K', 'W_V', 'W_O')}
    return err(attn(X, w, 1, causal), attn(X, merge_single_head(w), 1, causal))


def block_diagonal(rng, d, n_head, rope_commuting=False):
    """D = diag(D_1..D_h); with rope_commuting each D_i acts on every RoPE frequency pair (i, i + d_k/2) as
    a complex scalar [[a, -b], [b, a]], which commutes with the rotations."""
    dk = d // n_head
    D = np.zeros((d, d))
    for h in range(n_head):
        s = slice(h * dk, (h + 1) * dk)
        if rope_commuting:
            a, b = rng.standard_normal(dk // 2) + 2, rng.standard_normal(dk // 2)
            D[s, s] = np.block([[np.diag(a), np.diag(b)], [np.diag(-b), np.diag(a)]])
        else:
            D[s, s] = rng.standard_normal((dk, dk)) + 2 * np.eye(dk)
    return D


def check_prop_4_2(rng, T, d, n_head, causal=True, use_rope=False, rope_commuting=None):
    """-> max difference; with use_rope, rope_commuting picks D (default: the commuting form)."""
    X = rng.standard_normal((T, d))
    W_Q, W_K, W_V = (rng.standard_normal((d, d)) / math.sqrt(d) for _ in range(3))
    D = block_diagonal(rng, d, n_head, rope_commuting=use_rope if rope_commuting is None else rope_commuting)
    before = heads_output(X, W_Q, W_K, W_V, n_head, causal, use_rope)
    return err(before, heads_output(X, W_Q @ D, W_K @ np.linalg.inv(D).T, W_V, n_head, causal, use_rope))


def check_theorem(rng, which, vocab, T, d, n_head, n_layer, hidden, causal=True, tied=False):
    """-> (max |logits difference|, max |W_Q - I| over the layers the theorem makes I). which: '4.1', '4.2', '4.3'."""
    p = random_model(rng, vocab, T, d, n_layer, hidden, shared=(which == '4.3'), tied=tied)
    tokens = rng.integers(0, vocab, T)
    skips = 'attention' if which == '4.2' else 'all'
    j = int(rng.integers(n_layer))
    q = {'4.1': lambda: eliminate_one_query(p, j), '4.2': lambda: eliminate_all_queries(p, tied),
         '4.3': lambda: eliminate_shared_query(p)}[which]()
    reduced = [i for i, w in enumerate(q['layers']) if w['W_Q'] is None]
    assert reduced == ([j] if which == '4.1' else list(range(n_layer)))
    return err(transformer(tokens, p, n_head, skips, causal), transformer(tokens, q, n_head, skips, causal))


def check_remark_4(rng, vocab, T, d, n_head, n_layer, hidden):
    """Tied original (W_head = E^T), Theorem 4.1's transformation: -> (difference with the untied head it
    builds, difference if the head is re-tied to E~^T, how far Theta^-1 E^T is from E~^T)."""
    p = random_model(rng, vocab, T, d, n_layer, hidden, tied=True)
    tokens = rng.integers(0, vocab, T)
    q = eliminate_one_query(p, 0)
    before = transformer(tokens, p, n_head)
    retied = {**q, 'W_head': q['E'].T}
    return err(before, transformer(tokens, q, n_head)), err(before, transformer(tokens, retied, n_head)), \
        err(q['W_head'], q['E'].T)


def skip_mlp_example(rng, h, m, absorbable):
    """W_1 (m, h) with pairwise non-collinear rows and W_2 (h, m) with non-zero columns, both of rank h;
    absorbable: W_2[:, J] = -(W_1[J, :])^-1 on J = the first h rows, so that W_2[:, J] W_1[J, :] = -I."""
    W1, W2 = rng.standard_normal((m, h)), rng.standard_normal((h, m))
    if absorbable:
        W2[:, :h] = -np.linalg.inv(W1[:h])
    return W1, W2


def check_theorem_8_3(rng, h, m, n_points=2000):
    """-> dict: sufficiency error on an absorbable example, and on a generic one the smallest error over
    every candidate the necessity proof leaves (V_1 = S W_1, V_2 = W_2 up to a permutation and positive
    scaling that cancel, S a sign diagonal): none of the 2^m sign patterns works."""
    X = rng.standard_normal((n_points, h))
    target = lambda W1, W2: np.maximum(X @ W1.T, 0) @ W2.T + X
    W1, W2 = skip_mlp_example(rng, h, m, absorbable=True)
    J = skip_absorbing_subsets(W1, W2)[0]
    V1, V2 = absorb_skip(W1, W2, J)
    sufficiency = err(target(W1, W2), np.maximum(X @ V1.T, 0) @ V2.T)
    G1, G2 = skip_mlp_example(rng, h, m, absorbable=False)
    best = min(err(target(G1, G2), np.maximum(X @ (np.array(s)[:, None] * G1).T, 0) @ G2.T)
               for s in itertools.product((1, -1), repeat=m))
    return dict(sufficiency=sufficiency, subsets_absorbable=len(skip_absorbing_subsets(W1, W2)),
                subsets_generic=len(skip_absorbing_subsets(G1, G2)), generic_best=best)


def score_std(rng, d=768, n_head=12, sigma=0.02, n=20_000):
    """Appendix 8.1: the std of one head's initial score q . k for inputs x of unit norm and N(0, sigma^2)
    weights: standard q = x W_Q (paper: sigma^2 sqrt(d_k) = 0.0032), reduced q = x's own slice
    (paper: sigma / sqrt(h) = 0.0058). Measured over n independent draws of x and the weights."""
    dk = d // n_head
    standard, reduced = [], []
    for _ in range(n // 500):  # 500 draws at a time: the weights of one draw are d x d_k
        x = rng.standard_normal((500, d))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        q = np.einsum('nd,ndk->nk', x, rng.standard_normal((500, d, dk)) * sigma)
        k = np.einsum('nd,ndk->nk', x, rng.standard_normal((500, d, dk)) * sigma)
        standard.append((q * k).sum(1))
        reduced.append((x[:, :dk] * k).sum(1))
    standard, reduced = np.concatenate(standard).std(), np.concatenate(reduced).std()
    return float(standard), float(reduced)


def model_score_std(T=256, batch=8):
    """Appendix 8.1 in model.py itself: one GPT-2-small block (LayerNorm, width 768, 12 heads, N(0, 0.02)
    init) at initialization, standard and identity_query built from the same seed (same embeddings and
    W_K). -> (raw q.k std standard, W_Q = I, and the std of the logits after each one's attention scale,
    1/sqrt(d_k) and 1/(2 sqrt(d_k)))."""
    import torch
    from model import GPT, GPTConfig
    tokens = torch.randint(0, 50304, (batch, T), generator=torch.Generator().manual_seed(0))
    out = []
    for identity in (False, True):
        model = GPT(GPTConfig(n_layer=1, n_head=12, n_embd=768, block_size=T, vocab_size=50304, norm='layernorm',
                              mlp='gelu', pos='learned', tie_embeddings=True, identity_query=identity))
        with torch.no_grad():
            x = model.h[0].norm1(model.wte(tokens) + model.wpe(torch.arange(T)))
            attn = model.h[0].attn
            heads = lambda t: t.view(batch, T, 12, 64).transpose(1, 2)
            q, k = heads(x if identity else attn.q_proj(x)), heads(attn.k_proj(x))
            scores = q @ k.transpose(-1, -2)
        out.append((scores.std().item(), (scores * attn.scale).std().item()))
    return out[0][0], out[1][0], out[0][1], out[1][1]


# ----------------------------------------------------------------------------- the report

SIZES = {'full': [(5, 8, 2, 1, 16), (7, 12, 3, 2, 24), (9, 16, 4, 3, 32), (6, 24, 6, 4, 48)],
         'smoke': [(5, 8, 2, 1, 16), (7, 12, 3, 2, 24)]}  # (T, d, n_head, n_layer, hidden)


def main():
    args = common.parse_args(__doc__)
    args.mode = 'smoke' if args.mode == 'smoke' else 'full'  # the full checks take seconds: --quick runs them
    sizes = SIZES[args.mode]
    rng = np.random.default_rng(0)
    rows = []

    def row(statement, what, values, paper='exact (round-off)'):
        rows.append({'statement': statement, 'checked': what, 'max |difference|': f'{max(values):.1e}',
                     'paper': paper})

    shapes = ', '.join(f'T={T} d={d} h={h} L={L}' for T, d, h, L, _ in sizes)
    for causal in (True, False):
        mask = 'causal' if causal else 'bidirectional'
        row('Lemma 3.1', f'S_c after X -> X Theta, W -> Theta^-1 W; {mask}; {shapes}',
            [check_lemma_3_1(rng, T, d, h, causal) for T, d, h, _, _ in sizes])
        row('Prop. 4.1', f'one head: (I, W_K W_Q^T, W_V W_O, I); {mask}',
            [check_prop_4_1(rng, T, d, causal) for T, d, _, _, _ in sizes])
        row('Prop. 4.2', f'(W_Q D, W_K D^-T), D block-diagonal per head; {mask}',
            [check_prop_4_2(rng, T, d, h, causal) for T, d, h, _, _ in sizes])
    row('Prop. 4.2 + RoPE', 'D of complex scalars per frequency pair (commutes with the rotations)',
        [check_prop_4_2(rng, T, d, h, use_rope=True) for T, d, h, _, _ in sizes])
    row('Prop. 4.2 + RoPE', 'a generic block-diagonal D (does not commute): the identity fails',
        [check_prop_4_2(rng, T, d, h, use_rope=True, rope_commuting=False) for T, d, h, _, _ in sizes],
        paper='not claimed (RoPE: Sec. 6)')
    for which, text in (('4.1', 'all skips, one chosen layer W_Q = I'), ('4.2', 'skips around attention only, '
                        'every W_Q = I'), ('4.3', 'shared block, all skips, W_Q = I')):
        for causal in (True, False):
            errors = [check_theorem(rng, which, 11, T, d, h, L, hid, causal) for T, d, h, L, hid in sizes]
            row(f'Theorem {which}', f"{text}; logits; {'causal' if causal else 'bidirectional'}", errors)
    row('Theorem 4.2, tied head', 'Theta_{L+1} = (Theta_1^T)^-1 keeps W_head = E~^T',
        [check_theorem(rng, '4.2', 11, T, d, h, L, hid, tied=True) for T, d, h, L, hid in sizes])
    remarks = [check_remark_4(rng, 11, T, d, h, L, hid) for T, d, h, L, hid in sizes]
    row('Remark 4', 'tied original, Theorem 4.1: the transformed (untied) head', [r[0] for r in remarks])
    row('Remark 4', 're-tying the head to E~^T instead: the identity fails', [r[1] for r in remarks],
        paper='fails unless W_Q is orthogonal')
    relu = [check_theorem_8_3(rng, h, m) for h, m in ((2, 4), (3, 5), (4, 8))]
    row('Theorem 8.3, sufficiency', 'W_2[:,J] W_1[J,:] = -I: V_1 = (I - 2 diag 1_J) W_1, V_2 = W_2; (h, m) = '
        '(2, 4), (3, 5), (4, 8)', [r['sufficiency'] for r in relu])
    row('Theorem 8.3, necessity', 'generic W_1, W_2 (no such J): best of all 2^m sign-flip candidates',
        [min(r['generic_best'] for r in relu)], paper='no solution (> 0)')
    standard, reduced = score_std(rng, n=2_000 if args.mode == 'smoke' else 20_000)
    rows.append({'statement': 'Appendix 8.1', 'checked': 'initial score std, d = 768, 12 heads, sigma = 0.02, '
                 '|x| = 1: standard / W_Q = I / ratio', 'max |difference|': f'{standard:.4f} / {reduced:.4f} / '
                 f'{reduced / standard:.2f}', 'paper': '0.0032 / 0.0058 / 1.8'})
    raw_std, raw_red, scaled_std, scaled_red = model_score_std(T=32 if args.mode == 'smoke' else 256)
    rows.append({'statement': 'Appendix 8.1 in model.py', 'checked': 'GPT-2-small block at init (LayerNorm, so '
                 '|x|^2 = d): q.k std standard / W_Q = I / ratio; after the attention scale (1/8, 1/16)',
                 'max |difference|': f'{raw_std:.3f} / {raw_red:.3f} / {raw_red / raw_std:.2f}; '
                 f'{scaled_std:.3f} / {scaled_red:.3f} / {scaled_red / scaled_std:.2f}',
                 'paper': 'ratio 1.8, halved by 1/(2 sqrt(d_k))'})
    notes = ('float64, random instances (seed 0); "max |difference|" is the largest absolute difference between '
             'the outputs of the original and the transformed weights (attention outputs, or logits for the '
             'theorems) over all sizes listed. Theorem 8.3 rows use 2,000 random points x. The Appendix 8.1 rows '
             'give measured values instead of a difference.')
    common.report(args, NAME, 'Identity query: the reparametrization statements, checked numerically',
                  ['statement', 'checked', 'max |difference|', 'paper'], rows, notes=notes)


if __name__ == '__main__':
    main()
