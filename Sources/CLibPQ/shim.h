// libpq, as Debian's libpq-dev installs it (pkg-config adds -I/usr/include/postgresql).
#ifndef TAPWIRE_CLIBPQ_SHIM_H
#define TAPWIRE_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
