"""Finished games analysed after play: the losing move, proved by a game's exact oracle or assessed by search."""
