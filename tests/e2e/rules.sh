#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The alerts pmuguard ships (scripts/prometheus/pmuguard.rules.yml):
# promtool check rules, and promtool test rules on tests/e2e/alerts.test.yml
# (every alert, the first kernel denial's new series included).
# Exit 0 pass, 1 fail, 77 skip (a failure when PMUGUARD_TESTS_MUST_RUN=1).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
command -v promtool >/dev/null || skip "promtool is missing (Debian package prometheus)"
promtool check rules "$here/../../scripts/prometheus/pmuguard.rules.yml" || fail "promtool check rules"
(cd "$here" && promtool test rules alerts.test.yml) || fail "promtool test rules"
ok "the shipped alerts pass promtool check and every case of alerts.test.yml"
