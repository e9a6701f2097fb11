#pragma once

#include <QMainWindow>

namespace dimscope {

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;
    bool openFile(const QString &path);
};

} // namespace dimscope
