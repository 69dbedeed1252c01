"""SelectiveCascade: stages from cheapest to strongest, then a person, under one
guarantee."""
