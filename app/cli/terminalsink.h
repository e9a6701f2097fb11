// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QFile>
#include <QIODevice>

#include <cstdio>

// stdout or stderr of dimscope-cli, as a device that a QTextStream (or the JSON
// writer) writes to: whatever reaches it passes TerminalText on its way out.
//
// Why: every command escapes each string it took from a file where it prints it
// (TerminalText::field, so that a line feed in a name cannot start a fake line);
// this is the last guard behind those, so that a string printed unescaped by mistake
// (or a worker's log line) still cannot send ESC, a C1 control, a bidi override or a
// zero-width character to the terminal (docs/security.md, "Text from files in the
// terminal"). Line feeds and tabs pass: the commands lay out their own lines.
//
// In the Json and Python modes the characters are written as the escapes of those
// languages (\u202e, \u0085, \U000e0041 in Python), which read back as the same
// characters: JSON stays valid and equal, a generated Python spec stays equal, and
// neither shows a raw bidi override in a terminal or an editor ("Trojan Source").
// Such characters can only stand inside strings there: outside them JSON and the
// emitted Python hold only ASCII.
class TerminalSink : public QIODevice
{
public:
    enum class Mode { Text, Json, Python };

    explicit TerminalSink(FILE *stream, Mode mode = Mode::Text);
    ~TerminalSink() override;

    TerminalSink(const TerminalSink &) = delete;
    TerminalSink &operator=(const TerminalSink &) = delete;

    void setMode(Mode mode) { m_mode = mode; }
    // The underlying stream's error, when a write failed.
    QString streamError() const { return m_file.errorString(); }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override;

private:
    bool writeEscaped(const QByteArray &utf8);

    QFile m_file;
    Mode m_mode;
    QByteArray m_carry; // a UTF-8 sequence cut by the end of the last write
};
