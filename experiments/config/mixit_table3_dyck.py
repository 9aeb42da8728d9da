"""
Table 3 of "Is Random Attention Sufficient?" (the MixiT paper), Dyck-1 (the authors' 80 brackets: is
the string balanced?): the mixit row of experiments/mixit/algorithmic.py's full protocol, the
authors' depth.py settings (papers.authors). The paper's accuracy: standard 95.8, Frozen-QK 97.38,
MixiT 96.17.

    python train.py experiments/config/mixit_table3_dyck.py

The standard transformer and Frozen-QK: mixit_table3_dyck_standard.py (their keys lack MixiT's
block). Data: generated on first use; trained online, a fresh batch every step. The learning rate
(and the architecture) is the protocol's point before its search; the experiment searches Table 7's
grid per variant (fair.fair) and trains the best point on 3 seeds.

experiment: algorithmic, task=dyck, variant=mixit
"""

# the task (data/<task>/prepare.py)
task = 'dyck'
online = True

# the model
variant = 'mixit'
n_layer = 4
n_head = 64
n_embd = 512
block_size = 83
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
batch_size = 512
max_iters = 195312
eval_interval = 39063
