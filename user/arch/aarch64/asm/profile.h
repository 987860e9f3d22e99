/*
 * Programs mark make profile's windows with the kernel's instruction
 * (arch/aarch64/include/asm/profile.h): one copy of it.
 */
#include "../../../../arch/aarch64/include/asm/profile.h"
