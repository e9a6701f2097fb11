// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QListWidget;
class QTextBrowser;

namespace dimscope {

// Help > Documentation: dimscope's Markdown documentation (docs/), read in the app
// without a network or a browser. The pages are listed by their titles; links between
// them are followed in place, links to the web open in the browser.
class DocumentationDialog : public QDialog
{
    Q_OBJECT
public:
    // `folder`: where the .md files are (AppFiles::documentationDir()); empty when
    // this dimscope has none next to it, and the dialog says so.
    explicit DocumentationDialog(const QString &folder, QWidget *parent = nullptr);

    QListWidget *pages() const { return m_pages; }
    QTextBrowser *browser() const { return m_browser; }
    // Shows the page of that file name ("cli.md").
    bool showPage(const QString &fileName);

private:
    void listPages(const QString &folder);

    QListWidget *m_pages;
    QTextBrowser *m_browser;
};

} // namespace dimscope
