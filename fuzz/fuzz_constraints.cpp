// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: constraint set documents (ConstraintSetJson, docs/spec-format.md).
// Besides not crashing, a document that reads must survive a round trip: writing is
// canonical, so the written text reads back to an equal set and writes the same bytes.

#include "constraints/constraintsetjson.h"

#include <cstdio>
#include <cstdlib>

using namespace dimscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray json = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    QString error;
    const std::optional<ConstraintSet> set = ConstraintSetJson::read(json, &error);
    if (!set) {
        if (error.isEmpty()) {
            std::fprintf(stderr, "ConstraintSetJson refused the document without saying why\n");
            std::abort();
        }
        return 0;
    }
    const QByteArray written = ConstraintSetJson::write(*set);
    const std::optional<ConstraintSet> again = ConstraintSetJson::read(written, &error);
    if (!again || !(*again == *set) || ConstraintSetJson::write(*again) != written) {
        std::fprintf(stderr, "the written set does not read back the same (%s):\n%s\n",
                     qPrintable(error), written.constData());
        std::abort();
    }
    return 0;
}
