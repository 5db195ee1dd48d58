/*
 * lfs.h -- every LogFS internal at once, for white-box tests only.  The
 * sources of fs/logfs/ include the header of their own layer (format.h,
 * storage.h, tree.h, ns.h, ops.h), which sees only the layers below it;
 * users include logfs.h.  Layers: docs/architecture.md.
 */
#ifndef FLASHLAB_LFS_H
#define FLASHLAB_LFS_H

#include "ops.h"

#endif
