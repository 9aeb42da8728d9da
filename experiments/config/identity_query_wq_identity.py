"""
Table 2 of "W_K, W_V is probably all you need" (the identity-query paper), W_Q = I (117M): GPT-2
small without query weights, the query of head h the normalized input's h-th slice (attention scale
1/(2 sqrt(d_h)), weight decay 2^-5): the 'W_Q = I (117M)' row of
experiments/identity_query/identity_query.py's full protocol, the authors' code. The paper's
validation loss: baseline (124M) 3.016, W_Q = I (117M) 3.018. The other model of the claim:
identity_query_baseline.py.

OpenWebText is prepared first (it downloads; tiktoken's GPT-2 files too), then the authors' fixed
windows are written beside it (data/openwebtext/train_indices.npy, eval_val_indices.npy: the
experiment's --plan writes them, and trains nothing):

    python data/openwebtext/prepare.py
    python experiments/identity_query/identity_query.py --plan
    python train.py experiments/config/identity_query_wq_identity.py

The batch of 480 sequences of 1024 tokens is 40 micro-batches of 12 (the experiment's --micro_batch;
under torchrun the processes share them): days on one GPU.

experiment: identity_query, variant=W_Q = I (117M)
"""

# the task (data/<task>/prepare.py)
task = 'openwebtext'

# the model
variant = 'standard'
n_layer = 12
n_head = 12
n_embd = 768
block_size = 1024
vocab_size = 50304
norm = 'layernorm'
mlp = 'gelu'
pos = 'learned'
tie_embeddings = True
bias = False
identity_query = True

# the optimizer and schedule
learning_rate = 0.0006
warmup_iters = 2000
lr_decay_iters = 600000
min_lr = 6e-05
weight_decay = 0.03125
beta1 = 0.9
beta2 = 0.95
grad_clip = 1.0

# the budget
batch_size = 12
gradient_accumulation_steps = 40
max_iters = 100000
eval_interval = 1000

# the authors' fixed windows, files in the task's folder
train_indices = 'train_indices.npy'
eval_indices = 'eval_val_indices.npy'
