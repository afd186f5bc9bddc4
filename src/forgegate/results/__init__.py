"""Result models: what every gating command writes (the JSON contract) and how a reader gets it back."""
