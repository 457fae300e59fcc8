/* SPDX-License-Identifier: MIT */
#ifndef WARDER_EXPORT_H
#define WARDER_EXPORT_H

/* WARDER_API marks every public symbol; the library is built with hidden visibility. */
#if defined(WARDER_BUILDING_LIBRARY) && defined(__GNUC__)
#define WARDER_API __attribute__((visibility("default")))
#else
#define WARDER_API
#endif

#endif
