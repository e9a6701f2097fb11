// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "recording/recordingform.h"

#include <QDialog>
#include <QVector>

class QDialogButtonBox;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QVBoxLayout;

namespace dimscope {

// File > New Recording… and Record More Calls… (issue 21 item 1): the model (a Hugging
// Face folder, a factory with its tokenizer folder, or the project's model), the inputs:
// prompt boxes (a box a generate() call; a vision-language folder's prompts each take an
// image, picked with Add Image…, a speech folder's a WAV file, Add Audio…) or an inputs
// script (file.py:calls) that runs the model itself, the generation settings and where the capture and
// the project go. Its state and checks are a RecordingForm: the first error shows
// under the fields and Record stays disabled until there is none; Record asks before
// replacing an existing file.
class NewRecordingDialog : public QDialog
{
    Q_OBJECT
public:
    explicit NewRecordingDialog(QWidget *parent = nullptr);

    // The current project's model, offered by the "Project's Model" button.
    void setProjectModel(const QString &reference);
    // Record More Calls…: the recording's calls (read-only, recorded again first) and
    // its model and settings, fixed.
    void setMoreCalls(const RecordingForm &form);
    RecordingForm form() const;
    // True when the user agreed to replace the outputs that exist.
    bool replaceOutputs() const { return m_replace; }

    int promptBoxCount() const { return int(m_boxes.size()); }
    void addPromptBox();
    void removePromptBox(int index);

    void accept() override;

private:
    struct Box {
        QGroupBox *group;
        QPlainTextEdit *prompts;
        QPlainTextEdit *images;
        QPushButton *addImage;
        QPlainTextEdit *audio;
        QPushButton *addAudio;
        QPushButton *remove;
    };

    QWidget *createModelGroup();
    QWidget *createInputsGroup();
    QHBoxLayout *createInputsModeRow(QWidget *parent);
    void inputsModeChanged();
    QWidget *createSettingsGroup();
    QWidget *createOutputsGroup();
    void modelChanged();
    void renumberBoxes();
    void validate();
    void browseFolder(QLineEdit *edit, const QString &title);
    void browseSave(QLineEdit *edit, const QString &title, const QString &filter);

    QLineEdit *m_model;
    QPushButton *m_modelFolder;
    QPushButton *m_projectModel;
    QLabel *m_tokenizerLabel;
    QLineEdit *m_tokenizer;
    QPushButton *m_tokenizerFolder;
    QRadioButton *m_promptsMode = nullptr;
    QRadioButton *m_scriptMode = nullptr;
    QLineEdit *m_script = nullptr;
    QPushButton *m_scriptFile = nullptr;
    QWidget *m_promptsArea = nullptr; // the boxes and Add Prompt Box
    QLabel *m_scriptHint = nullptr;
    QLabel *m_earlier;
    QVBoxLayout *m_boxLayout = nullptr;
    QVector<Box> m_boxes;
    QSpinBox *m_maxNewTokens;
    QRadioButton *m_greedy;
    QRadioButton *m_beam;
    QSpinBox *m_beams;
    QSpinBox *m_calls;
    QLineEdit *m_capture;
    QLineEdit *m_project;
    QLabel *m_error;
    QDialogButtonBox *m_buttons;
    QPushButton *m_record;
    QString m_projectModelRef;
    QVector<RecordingForm::PromptBox> m_earlierBoxes;
    bool m_outputsEdited = false;
    bool m_vision = false;
    bool m_speech = false;
    bool m_replace = false;
};

} // namespace dimscope
