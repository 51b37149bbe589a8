from django import forms
from django.core.validators import RegexValidator

from scheduling.engine.api.objects import TAINT_EFFECTS

from scheduling.pages.whatif import NODE_CONDITIONS

cluster_name = RegexValidator(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    "a cluster name must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character",
)


class ClusterForm(forms.Form):
    name = forms.CharField(max_length=63, validators=[cluster_name])
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    seed = forms.IntegerField(required=False, initial=0, min_value=0, max_value=2**62)

    def clean_seed(self):
        return self.cleaned_data.get("seed") or 0


class ImportForm(forms.Form):
    MAX_BYTES = 20 * 1024 * 1024

    name = forms.CharField(max_length=63, validators=[cluster_name])
    description = forms.CharField(required=False)
    file = forms.FileField(required=False, help_text="YAML or JSON, one or many documents")
    # not stripped: a copy of a 20 MiB text for nothing (YAML ignores the blank ends)
    text = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}))
    # The explicit confirmation that the import replaces the cluster of this name (the button
    # "Replace cluster <name>" the form offers when the name is taken): it must name it.
    replace = forms.CharField(required=False, max_length=63)

    def replaces(self) -> bool:
        return bool(self.cleaned_data.get("replace")) and self.cleaned_data["replace"] == self.cleaned_data.get("name")

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            if upload.size > self.MAX_BYTES:
                raise forms.ValidationError(f"the file is larger than {self.MAX_BYTES // (1024 * 1024)} MiB")
            try:
                data["text"] = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("the file is not UTF-8 text") from None
            data["source"] = upload.name
        else:
            data["source"] = "pasted text"
        if (not data.get("text") or data["text"].isspace()) and "text" not in self.errors:  # else the text's own error says why
            raise forms.ValidationError("upload a file or paste YAML")
        return data


# --- the what-if editor ---------------------------------------------------------------------

EFFECTS = [(effect, effect) for effect in TAINT_EFFECTS]


class TaintForm(forms.Form):
    key = forms.CharField(max_length=316)
    value = forms.CharField(max_length=63, required=False)
    effect = forms.ChoiceField(choices=EFFECTS)


class OcTaintForm(forms.Form):
    """The `oc adm taint nodes NODE ...` forms: key=value:Effect, key:Effect, key:Effect-, key-."""

    taint = forms.CharField(max_length=1000, label="oc adm taint", strip=True)
    overwrite = forms.BooleanField(required=False)


class IndexForm(forms.Form):
    index = forms.IntegerField(min_value=0)


class LabelForm(forms.Form):
    key = forms.CharField(max_length=316)
    value = forms.CharField(max_length=63, required=False)


class KeyForm(forms.Form):
    key = forms.CharField(max_length=316)


class ConditionForm(forms.Form):
    type = forms.ChoiceField(choices=[(c, c) for c in NODE_CONDITIONS])
    status = forms.ChoiceField(choices=[("True", "True"), ("False", "False"), ("Unknown", "Unknown")])


class SchedulerNameForm(forms.Form):
    """spec.schedulerName: which scheduler places the pod (a profile's or a Policy's name)."""

    name = forms.CharField(max_length=253, strip=True)


class TolerationForm(forms.Form):
    key = forms.CharField(max_length=316, required=False)
    operator = forms.ChoiceField(choices=[("Equal", "Equal"), ("Exists", "Exists")])
    value = forms.CharField(max_length=63, required=False)
    effect = forms.ChoiceField(choices=[("", "(all effects)")] + EFFECTS, required=False)
    seconds = forms.IntegerField(required=False, label="tolerationSeconds")

    def toleration(self) -> dict:
        d = self.cleaned_data
        out = {"operator": d["operator"]}
        if d["key"]:
            out["key"] = d["key"]
        if d["operator"] == "Equal" and d["value"]:
            out["value"] = d["value"]
        if d["effect"]:
            out["effect"] = d["effect"]
        if d["seconds"] is not None:
            out["tolerationSeconds"] = d["seconds"]
        return out


class TextForm(forms.Form):
    text = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 16, "spellcheck": "false"}))


class ApplyForm(forms.Form):
    document = forms.CharField(widget=forms.HiddenInput)
    resource_version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    verb = forms.SlugField(required=False, widget=forms.HiddenInput)
    # an edit of several objects (oc adm taint nodes a b, --all, -l): `document` is a JSON
    # list, with each object's previewed resourceVersion and oc verb here, comma-separated
    versions = forms.RegexField(r"^\d+(,\d+)*$", required=False, widget=forms.HiddenInput)
    verbs = forms.RegexField(r"^[\w-]+(,[\w-]+)*$", required=False, widget=forms.HiddenInput)
    # the documents the edit was made from (JSON, as `document`): when an object moved on
    # since the preview, apply re-applies the edit to its latest version (store.merge)
    base = forms.CharField(required=False, widget=forms.HiddenInput)


class PolicyForm(forms.Form):
    text = forms.CharField(
        required=False,
        label="Policy (JSON or YAML; empty = the default policy)",
        widget=forms.Textarea(attrs={"rows": 22, "spellcheck": "false"}),
    )


class ClockForm(forms.Form):
    STEPS = (10, 60, 600)

    action = forms.ChoiceField(choices=[(a, a) for a in ("play", "pause", "speed")] + [(f"step-{s}", f"+{s}s") for s in STEPS])
    speed = forms.FloatField(required=False, min_value=1, max_value=600)


class NodeAffinityForm(forms.Form):
    key = forms.CharField(max_length=316)
    operator = forms.ChoiceField(choices=[(o, o) for o in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")])
    values = forms.CharField(required=False, help_text="comma-separated")

    def value_list(self) -> list[str]:
        return [v.strip() for v in self.cleaned_data["values"].split(",") if v.strip()]


TOPOLOGY_KEYS = [
    ("kubernetes.io/hostname", "same node (kubernetes.io/hostname)"),
    ("failure-domain.beta.kubernetes.io/zone", "same zone (failure-domain.beta.kubernetes.io/zone)"),
    ("failure-domain.beta.kubernetes.io/region", "same region (failure-domain.beta.kubernetes.io/region)"),
]


class PodAffinityForm(forms.Form):
    kind = forms.ChoiceField(choices=[("affinity", "near (podAffinity)"), ("anti-affinity", "away from (podAntiAffinity)")])
    key = forms.CharField(max_length=316)
    value = forms.CharField(max_length=63, required=False)
    topology_key = forms.ChoiceField(choices=TOPOLOGY_KEYS)
