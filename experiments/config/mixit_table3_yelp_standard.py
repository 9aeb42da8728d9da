"""
Table 3 of "Is Random Attention Sufficient?" (the MixiT paper), Yelp polarity (a review's class,
GPT-2 tokens): the standard row of experiments/mixit/algorithmic.py's full protocol, the authors'
trainer_classifier.py settings (papers.authors). The paper's accuracy: standard 90.55, Frozen-QK
90.86, MixiT 92.56.

    python train.py experiments/config/mixit_table3_yelp_standard.py

Frozen-QK: add --variant=frozen_qk (the same keys otherwise). MixiT: mixit_table3_yelp.py, which
adds MixiT's block. Data: prepare it first: python data/yelp/prepare.py (downloads the reviews). The
learning rate (and the architecture and batch) is the protocol's point before its search; the
experiment searches Table 7's grid per variant (fair.fair) and trains the best point on 3 seeds.

experiment: algorithmic, task=yelp, variant=standard|frozen_qk
"""

# the task (data/<task>/prepare.py)
task = 'yelp'
classify = True

# the model
variant = 'standard'
n_layer = 4
n_head = 16
n_embd = 1024
bias = True
scaled_init = False

# the optimizer and schedule
learning_rate = 0.0005
lr_schedule = 'linear'
warmup_iters = 500
min_lr = 0.0
weight_decay = 0.01
beta1 = 0.9
beta2 = 0.999
dtype = 'float32'

# the budget
batch_size = 256
max_iters = 6000
eval_interval = 1200
