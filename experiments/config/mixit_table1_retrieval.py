"""
Table 1 of "Is Random Attention Sufficient?" (the MixiT paper), retrieval (needle in a haystack: up
to 30 key-value pairs, their vocabulary 512): the mixit row of experiments/mixit/induction.py's full
protocol, the authors' depth.py settings (papers.RETRIEVAL, papers.authors). The paper's accuracy:
standard 100, Frozen-MLP 100, Frozen-QK 97.01, MixiT 11.24.

    python train.py experiments/config/mixit_table1_retrieval.py

The standard transformer, Frozen-MLP and Frozen-QK: mixit_table1_retrieval_standard.py (their keys
lack MixiT's block). Data: generated on first use; trained online, a fresh batch every step. The
learning rate is the protocol's point before its search; the experiment searches Table 7's learning
rates per variant (fair.fair) and trains the best on 3 seeds.

experiment: induction, task=retrieval, variant=mixit
"""

# the task (data/<task>/prepare.py)
task = 'retrieval'
m_max = 30
vocab = 512
online = True

# the model
variant = 'mixit'
n_layer = 2
n_head = 4
n_embd = 1024
block_size = 63
bias = True
scaled_init = False

# MixiT's block as the authors' code runs it (papers.MIXIT_BLOCK, MIXIT_DRIVER)
shaped_gate = -1.0
skip_scaling = 0.7071067811865476  # sqrt(1/2)
base_width = 512

# the optimizer and schedule
learning_rate = 0.01
lr_schedule = 'cosine'
warmup_iters = 500
min_lr = 0.0
weight_decay = 0.001
beta1 = 0.9
beta2 = 0.999
dtype = 'float32'

# the budget
batch_size = 1000
max_iters = 100000
eval_interval = 10000
