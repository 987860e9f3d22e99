/*
 * size_t aarch64_copy_from_user(void *dst, const void *usrc, size_t n)
 * size_t aarch64_copy_to_user(void *udst, const void *src, size_t n)
 * Both return the bytes NOT copied (0: all).
 *
 * The user side is read with ldtr and written with sttr, the unprivileged
 * forms: the CPU checks them as if EL0 made them.  So PAN, which stops
 * every privileged access to a page EL0 may touch, never needs turning
 * off, and the copy has the user's rights exactly: it cannot write the
 * user's read-only text, nor read the kernel (kernel/user/uaccess.c
 * checks the range first as well).
 *
 * Eight bytes at a time, then one: the access instructions are listed in
 * .ex_table, so a fault on a bad user address resumes at their fix-up
 * (arch/aarch64/trap.c) instead of being a kernel bug.  A fault ends the
 * copy, and the count left includes the word or byte that faulted: up to
 * 7 bytes more than could have been copied, as on x86-64 (its rep movsq
 * fix-up), so an 8-byte get_user() or put_user() is all or nothing.
 */
	.section .text, "ax"

	.globl	aarch64_copy_from_user
	.type	aarch64_copy_from_user, %function
aarch64_copy_from_user:
1:	cmp	x2, #8
	b.lo	from_user_bytes
from_user_word:
	ldtr	x3, [x1]
	str	x3, [x0], #8
	add	x1, x1, #8
	sub	x2, x2, #8
	b	1b
from_user_bytes:
	cbz	x2, from_user_done
from_user_byte:
	ldtrb	w3, [x1]
	strb	w3, [x0], #1
	add	x1, x1, #1
	sub	x2, x2, #1
	b	from_user_bytes
from_user_done:
	mov	x0, x2
	ret
	.size	aarch64_copy_from_user, . - aarch64_copy_from_user

	.globl	aarch64_copy_to_user
	.type	aarch64_copy_to_user, %function
aarch64_copy_to_user:
1:	cmp	x2, #8
	b.lo	to_user_bytes
	ldr	x3, [x1]
to_user_word:
	sttr	x3, [x0]
	add	x0, x0, #8
	add	x1, x1, #8
	sub	x2, x2, #8
	b	1b
to_user_bytes:
	cbz	x2, to_user_done
	ldrb	w3, [x1]
to_user_byte:
	sttrb	w3, [x0]
	add	x0, x0, #1
	add	x1, x1, #1
	sub	x2, x2, #1
	b	to_user_bytes
to_user_done:
	mov	x0, x2
	ret
	.size	aarch64_copy_to_user, . - aarch64_copy_to_user

	.section .ex_table, "a"
	.balign	8
	.quad	from_user_word, from_user_done	/* stop: x2 bytes were not copied */
	.quad	from_user_byte, from_user_done
	.quad	to_user_word, to_user_done
	.quad	to_user_byte, to_user_done

	.section .note.GNU-stack, "", %progbits
