// SPDX-License-Identifier: GPL-2.0-or-later
/* An empty preloaded library: the floor any preload pays at a start. */
int pmuguard_bench_empty;
