"""
The checks of a GPTConfig (model.py): the sizes and combinations the model cannot build, refused
before anything is built, with a message that says what to do. GPT.__init__ runs them, and train.py
before it reads any data.
"""


def check_config(c):
    """Rejects sizes and combinations that cannot be built, with a message that says what to do."""
    sizes = dict(
        block_size=1,
        vocab_size=1,
        n_layer=1,
        n_head=1,
        n_embd=1,
        universal_k=1,
        universal_d=0,
        base_width=0,
        n_classes=0,
    )
    for key, low in sizes.items():
        if getattr(c, key) < low:
            raise ValueError(f'{key}={getattr(c, key)} must be at least {low}')
    for key in ('mlp_ratio', 'rope_base', 'attn_scale', 'mixit_std'):
        if getattr(c, key) is not None and not getattr(c, key) > 0:
            raise ValueError(f'{key}={getattr(c, key)} must be positive')
    if not 0 <= c.dropout < 1:
        raise ValueError(f'dropout={c.dropout} must be in [0, 1)')
    if c.skip_scaling is not None and not (0 < c.skip_scaling < 1 and c.residual):
        raise ValueError(
            f'skip_scaling={c.skip_scaling} must be in (0, 1), with residual=True (None = x + f(x))'
        )
    if c.shaped_gate is not None and c.mlp != 'gated':
        raise ValueError("shaped_gate replaces the gated MLP's SiLU: it needs mlp='gated'")
    if c.n_classes and c.tie_embeddings:
        raise ValueError(
            'a classifier head (n_classes > 0) cannot be tied to the token embedding: '
            'tie_embeddings=False'
        )
    if not -1 <= c.pad_token < c.vocab_size:
        raise ValueError(
            f'pad_token={c.pad_token} must be a token id below vocab_size={c.vocab_size}, '
            'or -1 (none)'
        )
    if c.pad_token >= 0 and c.tie_embeddings:
        raise ValueError(
            'the LM head would train the padding row of a tied embedding: tie_embeddings=False or '
            'pad_token=-1'
        )
    choices = dict(
        norm=('rmsnorm', 'layernorm', 'none'),
        mlp=('gated', 'gelu', 'gelu_tanh', 'none'),
        pos=('rope', 'learned', 'none'),
        mixing=('softmax', 'mixit'),
        universal=('', 'sparse', 'random'),
    )
    for key, allowed in choices.items():
        if getattr(c, key) not in allowed:
            raise ValueError(f'{key}={getattr(c, key)!r} is not one of {allowed}')
    if c.n_embd % c.n_head and not c.universal:
        raise ValueError(f'n_embd={c.n_embd} must be a multiple of n_head={c.n_head}')
    if c.pos == 'rope' and (c.n_embd // c.n_head) % 2:
        raise ValueError(
            f'RoPE needs an even head_dim, got {c.n_embd // c.n_head}: change n_embd or n_head'
        )
    if c.mixing == 'mixit' and c.pos == 'rope':
        raise ValueError("MixiT has no queries or keys for RoPE to rotate: use pos='learned'")
    if c.mixing == 'mixit' and (c.identity_query or c.frozen_qk):
        raise ValueError('MixiT has no W_Q or W_K: identity_query and frozen_qk do not apply to it')
    if c.mixit_sink and c.mixing != 'mixit':
        raise ValueError("mixit_sink needs mixing='mixit'")
    if c.looped and not c.universal:
        raise ValueError('looped applies to the universal backbones only')
    if c.universal and (c.pos == 'rope' or c.mixing == 'mixit' or c.identity_query or c.frozen_qk):
        raise ValueError(
            'the universal backbones have their own fixed attention: '
            "use pos='learned' or 'none', mixing='softmax', and neither identity_query nor "
            'frozen_qk'
        )
    if c.universal == 'sparse':
        d, D = c.universal_shape()
        if c.n_embd != D:
            # a D of thousands of digits (deep or wide): its size in bits, not its digits
            width = (
                f'width D = {D}: set n_embd={D}' if D < 2**64 else f'width D ~ 2^{D.bit_length()}'
            )
            raise ValueError(
                f'universal_sparse with H={c.n_head} heads, L={c.n_layer} layers, d={d}, '
                f'k={c.universal_k}{" (looped)" if c.looped else ""} has {width}'
            )
