// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/violationcollector.h"

namespace dimscope {

ViolationCollector::ViolationCollector(ValidationReport *report, int max)
    : m_report(report)
    , m_max(max)
{
}

} // namespace dimscope
