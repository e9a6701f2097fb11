// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2program.h"

#include <QByteArray>
#include <QString>

namespace dimscope {

// Turns the serialized ExportedProgram JSON (torch/_export/serde/schema.py) into the
// interface parts of a Pt2Program: inputs, parameters/buffers, outputs, range
// constraints, call signature. On failure *error names the JSON location and the
// problem ("graph_module.graph.tensor_values['x'].sizes[1]: expected an object, got a
// string"); the caller adds the file and record names.
class Pt2ProgramParser
{
public:
    // Only the interface is parsed into a DOM (Pt2InterfaceJson): at most
    // maxInterfaceBytes and maxInterfaceElements of it, whatever the size of the rest.
    static bool parse(const QByteArray &json, Pt2Program *program, QString *error, qint64 maxInterfaceBytes,
                      qint64 maxInterfaceElements);
};

} // namespace dimscope
