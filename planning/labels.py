"""Human labels of plan steps (pt-BR, en), shown in progress events and the timeline."""

from __future__ import annotations

LABELS: dict[str, tuple[str, str]] = {
    "workPermit.read": ("Validando permissão…", "Checking permit…"),
    "workPermit.search": ("Buscando permissões…", "Searching permits…"),
    "workPermit.count": ("Contando permissões…", "Counting permits…"),
    "workPermit.create": ("Criando permissão…", "Creating permit…"),
    "workPermit.update": ("Atualizando responsável…", "Updating responsible…"),
    "workPermit.updateValidity": ("Atualizando validade…", "Updating validity…"),
    "workPermit.delete": ("Excluindo permissão…", "Deleting permit…"),
    "workPermit.approve": ("Aprovando permissão…", "Approving permit…"),
    "workPermit.cancel": ("Cancelando permissão…", "Cancelling permit…"),
    "workPermit.components.list": ("Lendo componentes…", "Reading components…"),
    "workPermit.components.add": ("Adicionando componente…", "Adding component…"),
    "workPermit.components.update": ("Atualizando componente…", "Updating component…"),
    "workPermit.components.remove": ("Removendo componente…", "Removing component…"),
    "workPermit.workers.list": ("Lendo trabalhadores…", "Reading workers…"),
    "workPermit.workers.add": ("Adicionando trabalhador…", "Adding worker…"),
    "workPermit.workers.remove": ("Removendo trabalhador…", "Removing worker…"),
    "employee.read": ("Identificando pessoa…", "Resolving person…"),
    "employee.search": ("Buscando pessoa…", "Looking up person…"),
    "navigation.workPermit.open": ("Abrindo permissão…", "Opening permit…"),
    "navigation.workPermit.openTab": ("Abrindo aba…", "Opening tab…"),
    "workPermit.readMany": ("Lendo permissões…", "Reading permits…"),
    "workPermit.checkTraining": ("Verificando treinamento…", "Checking training…"),
    "workPermit.assessRisk": ("Verificando riscos…", "Assessing risks…"),
    "workPermit.checkCompliance": ("Analisando conformidade…", "Checking compliance…"),
    "workPermit.recordDecision": ("Registrando decisão…", "Recording decision…"),
}

SPECIAL: dict[str, tuple[str, str]] = {
    "copy": ("Copiando componentes…", "Copying components…"),
    "verify": ("Validando resultado…", "Verifying result…"),
}


def step_label(capability_id: str, step_id: str = "") -> dict[str, str]:
    pt, en = SPECIAL.get(step_id) or LABELS.get(capability_id) or ("Executando etapa…", "Running step…")
    return {"pt-BR": pt, "en": en}
