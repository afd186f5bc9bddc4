"""A one-item battery and its gate config: the smallest server eval, shared by tests/test_light_core.py and
benchmarks/bench_startup.py (what a server eval imports, and what it costs)."""

ONE_ITEM = {"category": "LX-ONE", "prompt": "Say hello.", "expected": ["hello"], "max_tokens": 16,
            "eval_type": "contains"}
ONE_GATE = """name = "one"
gloss_v2 = false
category_floor = 0.50
sigma_total_min = 0.0
min_items = 1
wall_rule = true

[weights]
"LX-ONE" = 1.0

[live]
max_loops = 0
max_wall_violations = 0
min_correct = 1
"""
