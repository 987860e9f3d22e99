/* Running code placed in data (the heap): killed (data is never executable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	/* x86-64 `ret`, AArch64 `ret`: harmless if it ran, but it must not. */
	static const unsigned char ret_insn[] = { 0xc3, 0xc0, 0x03, 0x5f, 0xd6 };
	unsigned char *code = malloc(64);
	void (*fn)(void);

	if (!code)
		return 2;
#if defined(__aarch64__)
	memcpy(code, ret_insn + 1, 4);
#else
	memcpy(code, ret_insn, 1);
#endif
	fn = (void (*)(void))(void *)code;
	printf("calling the heap at %p\n", (void *)code);
	fn();
	return 0;
}
