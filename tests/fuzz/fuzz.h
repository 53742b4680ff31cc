/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the libFuzzer harnesses: walk the input line by line. */
#ifndef PMUGUARD_FUZZ_H
#define PMUGUARD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each line is handed over as its own heap copy of exactly its length, so
 * AddressSanitizer catches any read past it. */
#define FOR_EACH_LINE(data, size, line, len, body)                                   \
	do {                                                                          \
		const char *p_ = (const char *)(data), *e_ = p_ + (size);             \
		while (p_ < e_) {                                                     \
			const char *nl_ = memchr(p_, '\n', (size_t)(e_ - p_));         \
			size_t len = nl_ ? (size_t)(nl_ - p_) : (size_t)(e_ - p_);    \
			char *line = malloc(len ? len : 1);                           \
			if (!line)                                                    \
				return 0;                                             \
			memcpy(line, p_, len);                                        \
			body;                                                         \
			free(line);                                                   \
			p_ += len + 1;                                                \
		}                                                                     \
	} while (0)

#endif
