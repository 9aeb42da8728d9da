"""
Table 3 of "Is Random Attention Sufficient?" (the MixiT paper), memorization (a random label for
each of 512^2 pairs, scored on the training set): the standard row of
experiments/mixit/algorithmic.py's full protocol, the authors' hdmemorize_exp.py settings
(papers.authors). The paper's accuracy: standard 100, Frozen-QK 100, MixiT 100.

    python train.py experiments/config/mixit_table3_memorization_standard.py

Frozen-QK: add --variant=frozen_qk (the same keys otherwise). MixiT: mixit_table3_memorization.py,
which adds MixiT's block. Data: generated on first use. The learning rate (and the architecture) is
the protocol's point before its search; the experiment searches Table 7's grid per variant
(fair.fair) and trains the best point on 3 seeds.

experiment: algorithmic, task=memorization, variant=standard|frozen_qk
"""

# the task (data/<task>/prepare.py)
task = 'memorization'

# the model
variant = 'standard'
n_layer = 2
n_head = 4
n_embd = 1024
block_size = 3
bias = True
scaled_init = False

# the optimizer and schedule
learning_rate = 0.005
lr_schedule = 'cosine'
warmup_iters = 500
min_lr = 0.0
weight_decay = 0.0001
beta1 = 0.9
beta2 = 0.999
dtype = 'float32'

# the budget
batch_size = 32768
max_iters = 10000
eval_interval = 2000
