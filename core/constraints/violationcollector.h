// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintviolation.h"

namespace dimscope {

// Counts every violation into a ValidationReport and keeps the first `max`: the
// validator runs on every edit, and a bad set can break millions of sizes.
class ViolationCollector
{
public:
    using Rule = ConstraintViolation::Rule;

    ViolationCollector(ValidationReport *report, int max);

    // `make` builds the message only for the violations that are kept.
    template<typename Make>
    void add(Rule rule, int call, const QString &path, int dim, qint64 observed, const QString &dimName, Make make)
    {
        ++m_report->total;
        if (m_report->violations.size() >= m_max)
            return;
        m_report->violations.append({rule, call, path, dim, observed, dimName, make()});
    }

private:
    ValidationReport *m_report;
    int m_max;
};

} // namespace dimscope
